"""nbval does not run the handed-out exercise notebooks: everything in them is checked elsewhere.

Each exercise is its solution notebook with the answer cell left as a placeholder. nbval runs the
solution notebooks; ``tests/test_workshop.py`` checks that every other code cell of an exercise has
the same source and the same saved outputs as in its solution, and runs each placeholder through its
check cell, comparing the report with the one saved here. Running these six notebooks again would
cost six more kernels and test nothing new (see the README on the suite's running time).
"""

collect_ignore_glob = ["*.ipynb"]
