"""Configuration of the kiosk's hardware, board geometry, and calibration procedures."""
