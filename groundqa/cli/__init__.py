"""The ``groundqa`` command line: one module per command group, wired in :mod:`groundqa.cli.main`.

Nothing is re-exported here: ``from groundqa.cli.main import main`` (re-exporting ``main`` would shadow
the ``groundqa.cli.main`` module with the function of the same name).
"""
