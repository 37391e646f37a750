"""The robot: a GRBL 1.1 gantry with an electromagnet under the board, and its simulation.

Modules, each with one job:

- `grbl_codes`  GRBL 1.1 error/alarm meanings and protocol sizes.
- `grbl`        `GrblDriver`: pyserial (device, pty or `socket://` URL), reader thread,
                send-response streaming, status/real-time bytes, completion waits,
                `make_safe()` (soft reset + magnet off) for every error path.
- `layout`      `TableLayout`: board squares and storage slots (`Slot(side, index)`,
                king = `Slot('defenders', 0)`) in board and machine millimetres, from
                the configuration via calibration.geometry; `PieceSet`, `start_position`.
- `ledger`      `Ledger`: where every physical piece is, saved atomically after every
                step, with the step in progress written down before it starts.
- `planner`     `MotionPlanner`: straight slides, A* on the street graph, capture
                order, the reset between games (`plan_reset`: set-up and clearing
                too) by minimum-time assignment; `Step`, `MotionTimes`.
- `collision`   `check_plan`: independent geometric proof of clearance.
- `gantry`      `Gantry`: runs steps as G-code, keeps the ledger, recovers.
- `kinematics`  GRBL-style trapezoids, junction speeds and look-ahead (simulator, bench).
- `table`       `Table`: the simulated physical table (discs, magnet, collisions).
- `sim_gcode`   the simulated controller's G-code parser.
- `simulator`   `GrblSimulator`: GRBL 1.1 behind a real pty, timing, alarms, faults.
- `simrig`      `SimRig`: table + simulator + driver + gantry in one process.
- `cli`         `tafl-robot`;  `sim_cli`: `tafl-gantry-sim`.
"""
