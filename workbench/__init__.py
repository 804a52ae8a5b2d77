"""The learner's workbench: starters for the course's code tasks, and checks that grade a learner's code.

`python -m workbench LAB` (or `make check LAB=...`) writes the lab's starters into `mywork/` where none
are yet, then grades them against the course's own snippets, which are the reference solutions.
"""
