"""python -m workbench [LAB[#anchor]] [--reference]: write the lab's starters into mywork/ where missing,
then grade them. With no LAB, list the labs and their tasks. --reference grades the course's own code.
python -m workbench LAB --deliverable [FOLDER]: validate the lab's deliverable folder (the lab's own by default)."""

from __future__ import annotations

import argparse
import os
import sys

from engine import pin_numerics


def listing(grouped: dict) -> str:
    """The labs, each under its page's title, and their tasks, each with its title on the page."""
    from workbench.pages import page_title, task_title

    lines = []
    for lab, tasks in grouped.items():
        lines.append(f"{lab}  ({page_title(tasks[0].page)})")
        width = max(len(task.name) for task in tasks)
        lines += [f"  {task.name:<{width}}  {task_title(task.page, task.anchor, task.number)}" for task in tasks]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m workbench", description=__doc__)
    parser.add_argument("lab", nargs="?", help="a lab, as phase25/lab01, or one task, as phase25/lab01#code")
    parser.add_argument("--reference", action="store_true", help="grade the course's solutions instead")
    parser.add_argument("--notebook", action="store_true",
                        help="write the lab's workspace notebook and its solutions into mywork/ instead")
    parser.add_argument("--deliverable", nargs="?", const="", metavar="FOLDER",
                        help="validate your deliverable folder instead (default: the folder the lab names)")
    args = parser.parse_args(argv)
    pin_numerics()  # the course's numerical environment, before torch loads: the pages' numbers
    os.environ.setdefault("TRITON_INTERPRET", "1")  # Triton's kernels run in its interpreter on CPU

    from workbench.catalogue import labs
    from workbench.tasks import check
    from workbench.workspace import MYWORK, load, write_starters

    grouped = labs()
    if args.lab is None:
        print(listing(grouped))
        return 0
    lab, _, anchor = args.lab.partition("#")
    tasks = [task for task in grouped.get(lab.strip("/"), [])
             if anchor in ("", task.anchor, task.name.partition("#")[2])]  # a section, or one task by its name
    if not tasks:
        print(f"no task called {args.lab}; `python -m workbench` lists them", file=sys.stderr)
        return 2
    if args.deliverable is not None:
        from workbench.deliverables import default_folder, validate

        folder = args.deliverable or default_folder(lab.strip("/"))
        problem = validate(lab.strip("/"), folder)
        print(f"{'PASS' if problem is None else 'FAIL'} deliverable {folder}" + (f": {problem}" if problem else ""))
        return 1 if problem else 0
    if args.notebook:
        from workbench.notebook import to_json, workspace

        for suffix, solutions in (("", False), (".solutions", True)):
            path = MYWORK / f"{lab.strip('/')}{suffix}.ipynb"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(to_json(workspace(tasks, solutions)))
            print(f"wrote {path.relative_to(MYWORK.parent)}")
        return 0
    if not args.reference:
        for path in write_starters(tasks):
            print(f"wrote your starter {path.relative_to(MYWORK.parent)}: fill it in, then run this again")
    failed = 0
    for task in tasks:
        learner = task.reference if args.reference else load(MYWORK / task.module)
        problem = check(task, learner)
        failed += problem is not None
        print(f"{'PASS' if problem is None else 'FAIL'} {task.name}" + (f": {problem}" if problem else ""))
    print(f"{len(tasks) - failed} of {len(tasks)} tasks pass")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
