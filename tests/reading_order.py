"""A page of the reading order: it opens with "Before you start" and closes with Previous, then Next."""


def follows_the_reading_order(text: str, previous: str, following: str) -> bool:
    """The first section is `{ #before }`; the `{ #next }` section links `previous` before `following`."""
    opens = text.split("\n## ", 2)[1].split("{ #")[1].startswith("before }")
    closing = text.rsplit("{ #next }", 1)[1]
    return opens and previous in closing and following in closing and closing.index(previous) < closing.index(following)
