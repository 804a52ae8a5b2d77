"""Written by `python -m snippets.minigpt.train`: what the shipped weights are. Do not edit."""

WEIGHTS_SHA256 = '96235dfbc3a66b9b80583e7a6da9d5d168ae4f57ffc96a9f4a7dc6565744fbac'
TRAIN_CONFIG = {'seed': 0, 'steps': 1200, 'batch': 32, 'lr': 0.003, 'warmup': 60, 'weight_decay': 0.01, 'data_seed': 1000, 'threads': 1}
MODEL_CONFIG = {'vocab_size': 600, 'd_model': 64, 'n_heads': 4, 'n_layers': 2, 'd_mlp': 256, 'block_size': 64, 'ln_eps': 1e-05}
HELDOUT_ACCURACY = 0.988525390625
FINAL_LOSS = 3.8711678981781006
TORCH_VERSION = '2.13.0+cpu'
