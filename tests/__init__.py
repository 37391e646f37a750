"""The test suite (a package, so that its helpers are imported one way: ``tests.helpers.x``)."""
