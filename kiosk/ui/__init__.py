"""The touchscreen: pygame screens that draw the game controller's view and send it commands.

`kiosk.ui.app.run_app` runs the loop; every screen is a small module here
(attract, start, game, errors, rules, rewards, staff). The screens never touch
hardware: they read `ControllerView` snapshots and call the controller.
"""
