"""The probabilistic grammar behind the MiniGPT: 600 tokens, sentences with number agreement.

A sentence is a subject noun phrase, an optional prepositional phrase, an optional adverb, then
either a transitive verb with an object (itself optionally followed by a prepositional phrase) or an
intransitive verb with an optional adverb and prepositional phrase; clauses may be joined by "and" or
"but", and a sentence ends with ".". The verb agrees in number with the subject noun ("the dog near
the cats sees", "the dogs near the cat see"), so predicting it needs the subject, not the last word.

A document is `<bos>`, one to three sentences, `<eos>`. The grammar is a finite automaton:
`allowed_next(words)` is the exact set of words that may follow a prefix, which is what the
prompt-prediction accuracy checks. Pure Python (no NumPy, no torch): it runs everywhere.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIALS = (PAD, BOS, EOS, UNK)
PERIOD = "."

DETERMINERS_SINGULAR = ("a", "every", "this", "that", "each", "one")
DETERMINERS_PLURAL = ("these", "those", "many", "few", "two", "three", "several", "all")
DETERMINERS_EITHER = ("the", "my", "your", "his", "her", "our", "their", "some", "no")
PREPOSITIONS = ("with", "near", "on", "under", "behind", "beside", "above", "below", "inside", "without")
CONJUNCTIONS = ("and", "but")
ADVERBS = (
    "quickly", "slowly", "often", "never", "always", "rarely", "quietly", "loudly", "happily", "sadly",
    "gladly", "suddenly", "softly", "gently", "calmly", "eagerly", "proudly", "bravely", "carefully",
    "lazily", "sometimes", "usually", "seldom", "barely", "truly", "boldly", "kindly", "wisely", "shyly",
    "politely",
)
ADJECTIVES = (
    "big", "small", "tall", "short", "old", "young", "new", "happy", "sad", "angry", "calm", "quiet",
    "loud", "brave", "shy", "clever", "silly", "lazy", "busy", "kind", "proud", "gentle", "friendly",
    "hungry", "sleepy", "tired", "strong", "weak", "fast", "slow", "red", "blue", "green", "yellow",
    "purple", "black", "white", "brown", "pink", "gray", "bright", "dark", "shiny", "dusty", "dirty",
    "heavy", "light", "soft", "hard", "warm", "cold", "hot", "wet", "dry", "round", "square", "flat",
    "sharp", "smooth", "rough", "tiny", "huge", "giant", "little", "fancy", "plain", "strange", "famous",
    "rich", "poor", "lucky", "curious", "careful", "noisy", "funny", "wild", "golden", "silver",
    "wooden", "broken", "empty", "full", "fresh", "sweet", "sour", "bitter", "salty", "spicy",
    "cheerful", "gloomy", "grumpy", "polite", "rude", "honest", "wise", "foolish", "pretty", "fierce",
    "tidy", "messy",
)
NOUNS = (
    "cat", "dog", "bird", "horse", "cow", "pig", "goat", "duck", "frog", "rabbit", "lion", "tiger",
    "bear", "snake", "whale", "shark", "monkey", "donkey", "turkey", "camel", "zebra", "owl", "eagle",
    "crow", "ant", "bee", "spider", "beetle", "squirrel", "hamster", "parrot", "penguin", "dolphin",
    "turtle", "lizard",
    "teacher", "doctor", "farmer", "baker", "singer", "painter", "writer", "driver", "sailor", "pilot",
    "nurse", "student", "artist", "soldier", "king", "queen", "prince", "princess", "girl", "boy",
    "friend", "neighbor", "stranger", "visitor", "captain", "chef", "clerk", "judge", "lawyer", "guard",
    "book", "table", "chair", "lamp", "box", "cup", "plate", "bottle", "window", "door", "garden",
    "house", "tree", "flower", "stone", "river", "mountain", "hill", "lake", "road", "bridge", "car",
    "bus", "train", "boat", "ship", "bicycle", "kite", "ball", "toy", "apple", "banana", "orange",
    "cake", "cookie", "sandwich", "pencil", "letter", "picture", "map", "key", "clock", "bell",
    "basket", "blanket", "pillow", "candle", "mirror", "coin", "ring", "hat", "coat", "shoe", "sock",
    "glove", "bag", "drum", "guitar", "piano", "violin", "computer", "phone", "camera", "robot",
    "rocket", "planet", "star", "cloud", "island", "forest",
)
TRANSITIVE_VERBS = (
    "see", "like", "love", "hate", "find", "follow", "watch", "carry", "hold", "push", "pull", "chase",
    "help", "visit", "paint", "draw", "read", "write", "build", "break", "fix", "clean", "open",
    "close", "throw", "catch", "kick", "touch", "feed", "wash", "hug", "call", "greet", "meet", "admire",
    "notice", "ignore", "remember", "forget", "want", "need", "bring", "buy", "sell", "steal", "hide",
    "keep", "lift", "drop", "count",
)
INTRANSITIVE_VERBS = (
    "sleep", "run", "jump", "sing", "dance", "laugh", "cry", "smile", "walk", "swim", "fly", "wait",
    "rest", "sit", "fall", "shout", "whisper", "listen", "play", "work", "dream", "travel", "arrive",
    "leave", "wander", "sneeze", "cough", "shiver", "blink", "yawn",
)


def add_s(word: str) -> str:
    """English -s suffix, regular spelling only: box -> boxes, carry -> carries, toy -> toys."""
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


# Word classes. Nouns: singular and plural; verbs: third person singular ("sees") and plural ("see").
CLASSES: dict[str, tuple[str, ...]] = {
    "det_sg": DETERMINERS_SINGULAR,
    "det_pl": DETERMINERS_PLURAL,
    "det_any": DETERMINERS_EITHER,
    "adj": ADJECTIVES,
    "noun_sg": NOUNS,
    "noun_pl": tuple(add_s(n) for n in NOUNS),
    "prep": PREPOSITIONS,
    "adv": ADVERBS,
    "vt_sg": tuple(add_s(v) for v in TRANSITIVE_VERBS),
    "vt_pl": TRANSITIVE_VERBS,
    "vi_sg": tuple(add_s(v) for v in INTRANSITIVE_VERBS),
    "vi_pl": INTRANSITIVE_VERBS,
    "conj": CONJUNCTIONS,
    "period": (PERIOD,),
    "eos": (EOS,),
}

VOCAB: tuple[str, ...] = SPECIALS + tuple(word for words in CLASSES.values() for word in words if word != EOS)
WORD_CLASS: dict[str, str] = {word: name for name, words in CLASSES.items() for word in words}

MAX_ADJECTIVES = 2
MAX_SENTENCES = 3


@dataclass(frozen=True)
class State:
    """Where the automaton is.

    slot: which part of the sentence comes next; subject: the subject's number ("sg"/"pl");
    det: the number the current noun phrase's determiner allows ("sg", "pl" or "any");
    adjectives: adjectives so far in the current noun phrase; then: the slot a noun phrase returns
    to; pp: a prepositional phrase was already used in this part; sentences: sentences finished.
    """

    slot: str = "clause"
    subject: str = ""
    det: str = ""
    adjectives: int = 0
    then: str = ""
    pp: bool = False
    sentences: int = 0


# Each slot lists (word class, weight, what happens next). Weights are relative within a slot.
def _choices(state: State) -> list[tuple[str, float, State]]:
    s = state
    if s.slot in ("clause", "sentence"):
        det = [] if s.sentences >= MAX_SENTENCES else [
            (f"det_{n}", w, replace(s, slot="np", det=n, adjectives=0, then="subject", pp=False))
            for n, w in (("sg", 3.0), ("pl", 3.0), ("any", 4.0))]
        if s.slot == "sentence" and s.sentences > 0:
            det.append(("eos", 4.0, replace(s, slot="done")))
        return det
    if s.slot == "np":
        numbers = ("sg", "pl") if s.det == "any" else (s.det,)
        out = []
        if s.adjectives < MAX_ADJECTIVES:
            out.append(("adj", 4.0 if s.adjectives == 0 else 2.0, replace(s, adjectives=s.adjectives + 1)))
        for n in numbers:
            after = replace(s, slot=s.then, det="", adjectives=0)
            if s.then == "subject" and not s.pp:  # the subject itself, not a noun in its phrase
                after = replace(after, subject=n)
            out.append((f"noun_{n}", 6.0 / len(numbers), after))
        return out
    if s.slot == "subject":  # after the subject noun (or its prepositional phrase)
        out = [("adv", 1.5, replace(s, slot="verb")),
               (f"vt_{s.subject}", 5.0, replace(s, slot="object_det", pp=False)),
               (f"vi_{s.subject}", 3.0, replace(s, slot="after_vi", pp=False))]
        if not s.pp:
            out.append(("prep", 2.0, replace(s, slot="pp_det", then="subject", pp=True)))
        return out
    if s.slot == "verb":
        return [(f"vt_{s.subject}", 5.0, replace(s, slot="object_det", pp=False)),
                (f"vi_{s.subject}", 3.0, replace(s, slot="after_vi", pp=False))]
    if s.slot in ("object_det", "pp_det"):
        then = "after_object" if s.slot == "object_det" else s.then
        return [(f"det_{n}", w, replace(s, slot="np", det=n, adjectives=0, then=then))
                for n, w in (("sg", 3.0), ("pl", 3.0), ("any", 4.0))]
    if s.slot in ("after_object", "after_vi", "after_adv"):
        out = [("period", 6.0, replace(s, slot="sentence", sentences=s.sentences + 1, pp=False)),
               ("conj", 1.5, replace(s, slot="clause", pp=False))]
        if not s.pp:
            out.append(("prep", 3.0, replace(s, slot="pp_det", then="end_pp", pp=True)))
        if s.slot == "after_vi":
            out.append(("adv", 2.0, replace(s, slot="after_adv")))
        return out
    if s.slot == "end_pp":
        return [("period", 6.0, replace(s, slot="sentence", sentences=s.sentences + 1, pp=False)),
                ("conj", 1.5, replace(s, slot="clause", pp=False))]
    raise ValueError(f"no words may follow slot {s.slot!r}")


def start() -> State:
    """The state right after `<bos>`."""
    return State(slot="sentence")


def step(state: State, word: str) -> State:
    """The state after `word`; ValueError when the grammar does not allow it there."""
    cls = WORD_CLASS.get(word)
    for name, _, nxt in _choices(state):
        if name == cls:
            return nxt
    raise ValueError(f"{word!r} is not allowed in slot {state.slot!r}")


def allowed_after(words: list[str]) -> list[set[str]]:
    """For each prefix `words[:i + 1]` of a token stream, the words the grammar allows next.

    A stream is documents laid end to end, each `<bos> ... <eos>`; ValueError when `words` breaks
    the grammar.
    """
    sets, state = [], None  # None: between documents, only <bos> may come
    for word in words:
        if state is None or state.slot == "done":
            if word != BOS:
                raise ValueError(f"a document starts with {BOS}, not {word!r}")
            state = start()
        else:
            state = step(state, word)
        done = state.slot == "done"
        sets.append({BOS} if done else {w for name, _, _ in _choices(state) for w in CLASSES[name]})
    return sets


def allowed_next(words: list[str]) -> set[str]:
    """Every word the grammar allows after the token stream `words`."""
    return allowed_after(words)[-1] if words else {BOS}


def generate_document(rng: random.Random) -> list[str]:
    """One document: `<bos>`, one to three sentences, `<eos>`, drawn with `rng`."""
    words, state = [BOS], start()
    while state.slot != "done":
        options = _choices(state)
        name, _, state = rng.choices(options, weights=[w for _, w, _ in options])[0]
        words.append(rng.choice(CLASSES[name]))
    return words


def generate_corpus(n: int, seed: int) -> list[str]:
    """`n` documents as text (words separated by spaces), the same for the same seed."""
    rng = random.Random(seed)
    return [" ".join(generate_document(rng)) for _ in range(n)]


def token_stream(length: int, seed: int) -> list[str]:
    """Documents drawn with `seed` and laid end to end, cut to `length` words."""
    rng = random.Random(seed)
    words: list[str] = []
    while len(words) < length:
        words.extend(generate_document(rng))
    return words[:length]
