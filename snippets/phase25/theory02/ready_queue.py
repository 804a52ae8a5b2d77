"""The reverse traversal in frames: at each step of backward, the node that runs and the ready queue after it."""

from snippets import figure
from snippets.phase25.theory02.backward_order import backward_order
from snippets.phase25.theory02.graph_diagram import head_loss
from snippets.phase25.theory02.graph_walk import label, walk

ROW, CHAR, STEP, NODE = 34, 7.8, 40, 170  # a frame's height, a character's width, the step column, the running node
WORDS = {
    "en": {"step": "step", "runs": "runs", "queue": "ready queue after it, next first (green: just made ready)", "new": "new",
           "title": "backward of cross_entropy(linear(x, W, b), target): the ready queue step by step",
           "frame": "step {n}: {node} runs; ready queue after it: {queue}", "empty": "empty"},
    "es": {"step": "paso", "runs": "ejecuta", "queue": "cola de listos después, primero el siguiente (verde: recién listo)",
           "new": "nuevo", "title": "backward de cross_entropy(linear(x, W, b), target): la cola de listos paso a paso",
           "frame": "paso {n}: se ejecuta {node}; cola de listos después: {queue}", "empty": "vacía"},
}


def frames() -> list[dict]:
    """Per step of the real backward: the node that ran, the queue of ready nodes left after it (in the
    order the engine took them) and which of those it made ready. A node is ready once every edge into it
    has been run through; a node the run took before it was ready fails loudly."""
    order = [row["node"] for row in backward_order()]
    loss, leaves = head_loss()
    nodes, edges = walk(loss.grad_fn)
    names = [label(node, leaves) for node in nodes]
    waiting = {name: sum(1 for e in edges if e.child is not None and names[e.child] == name) for name in names}
    ready, shown = {names[0]}, []
    for node in order:
        if node not in ready:
            raise AssertionError(f"{node} ran before every gradient it waits for had arrived")
        ready.remove(node)
        made = []
        for edge in edges:
            if edge.child is not None and names[edge.parent] == node:
                waiting[names[edge.child]] -= 1
                if waiting[names[edge.child]] == 0:
                    ready.add(names[edge.child])
                    made.append(names[edge.child])
        shown.append({"runs": node, "queue": sorted(ready, key=order.index), "made": made})
    return shown


def describe(steps: list[dict], lang: str) -> str:
    words = WORDS[lang]
    return "; ".join(words["frame"].format(n=n, node=step["runs"], queue=", ".join(step["queue"]) or words["empty"])
                     for n, step in enumerate(steps, 1))


def draw(steps: list[dict], lang: str) -> tuple[str, str]:
    """A row per step: its number, the node that runs (filled), then the queue, the nodes it made ready in green."""
    words = WORDS[lang]
    widths = {name: len(name) * CHAR + 14 for step in steps for name in [step["runs"], *step["queue"]]}
    queue_width = max(sum(widths[n] + 6 for n in step["queue"]) for step in steps)
    width = STEP + NODE + 24 + max(queue_width, len(words["queue"]) * CHAR * 11 / 13) + 8
    body = [figure.text(4, 16, words["step"], size=11), figure.text(STEP, 16, words["runs"], size=11),
            figure.text(STEP + NODE + 24, 16, words["queue"], size=11)]
    for n, step in enumerate(steps):
        y = 26 + n * ROW
        body += [figure.text(12, y + 18, str(n + 1)), figure.rect(STEP, y, widths[step["runs"]], 26, opacity=0.35),
                 figure.text(STEP + 7, y + 18, step["runs"]),
                 figure.arrow(STEP + NODE, y + 13, STEP + NODE + 18, y + 13, "ready-queue", lang)]
        x = STEP + NODE + 24
        for name in step["queue"]:
            made = name in step["made"]
            body += [figure.rect(x, y, widths[name], 26, figure.GREEN if made else figure.BLUE, 0.2,
                                 tip=words["new"] if made else None),
                     figure.text(x + 7, y + 18, name)]
            x += widths[name] + 6
    desc = describe(steps, lang)
    height = 26 + len(steps) * ROW + 4
    return figure.svg(width, height, body, words["title"], desc, "ready-queue", lang, described=True), desc + "."


def main():
    steps = frames()
    print(figure.in_languages("ready-queue", lambda lang: draw(steps, lang)))


def claim_queue_order(main):
    """#reverse-traversal: after NllLossBackward0, LogSoftmaxBackward0 is alone in the queue; after AddmmBackward0 the queue holds AccumulateGrad(b), AccumulateGrad(x) and TBackward0, in that order, and the last step leaves it empty."""
    desc = main.desc
    return (desc.startswith("step 1: NllLossBackward0 runs; ready queue after it: LogSoftmaxBackward0; step 2: ")
            and "AddmmBackward0 runs; ready queue after it: AccumulateGrad(b), AccumulateGrad(x), TBackward0; step 4: " in desc
            and desc.endswith("ready queue after it: empty"))
