"""Vision: read the physical board from the overhead camera and infer the visitor's move.

    frames (vision.sources) -> BoardReader.read (markers, homography, square
    classes with confidence) -> StabilityTracker (still for camera.stable_s)
    -> read_move (the legal move that best explains the squares, or the unsure squares, or
    the illegal change)

vision.renderer draws camera frames of any position for the simulation and
the tests; `tafl-vision` (vision.cli) is the command line.
"""
from vision.inference import MoveReading, Verdict, read_move
from vision.localise import NotReadable
from vision.position import SquareClass
from vision.reader import BoardReader, Reading
from vision.stability import StabilityTracker

__all__ = [
    "BoardReader", "Reading", "NotReadable", "read_move", "MoveReading", "Verdict", "StabilityTracker",
    "SquareClass",
]
