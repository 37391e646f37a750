"""What the tests share: fake ports, rigs, rendered scenes, UI drivers. One package, imported as
``tests.helpers.<module>``; a test module never imports another test module."""
