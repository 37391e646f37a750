"""The touchscreen: pygame screens that draw the game controller's view and send it commands.

`kiosk.ui.app.run_app` runs the loop (`KioskApp.step` is one frame). One
module per screen: attract, start, game (with errors for the problems a
visitor can fix), rules (content in rules_content), rewards_screen, staff.
Shared parts: layout (pixel sizes from millimetres for the 10.1" 1280x800 and
7" 800x480 panels), palette (colour-blind-safe colours), widgets, board_view,
avatar, fonts, qr (a small QR encoder), and
screenshots (every screen as PNG, `tafl-kiosk --simulate --screenshots DIR`).
The screens never touch hardware: they read `ControllerView` snapshots.
"""
