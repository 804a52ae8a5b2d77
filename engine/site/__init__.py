"""The finished site: a snippet rendered as Markdown, the page's HTML fixed and lightened, search split by
language, the 404 pages, and what each page weighs."""
