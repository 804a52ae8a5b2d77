"""Each lab page as a Jupyter notebook, and the notebook's page on the site."""
