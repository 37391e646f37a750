"""The loop's pieces that are not drawing: the frame limiter and run_app's contract."""
import pygame

from calibration.config import Config
from kiosk.ui.app import FrameLimiter, run_app
from kiosk.ui.screenshots import StillController, idle_view


class FakeTime:
    def __init__(self):
        self.now = 0.0
        self.slept = []

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds + 0.004          # every sleep oversleeps by 4 ms


def test_limiter_keeps_sixty_frames_a_second_despite_oversleeping():
    t = FakeTime()
    limiter = FrameLimiter(60, clock=t.clock, sleep=t.sleep)
    for _ in range(600):
        t.now += 0.002                       # 2 ms of work per frame
        limiter.wait()
    assert abs(600 / t.now - 60) < 1.0


def test_limiter_restarts_its_schedule_after_a_stall():
    t = FakeTime()
    limiter = FrameLimiter(60, clock=t.clock, sleep=t.sleep)
    t.now += 1.0                             # one frame took a second
    limiter.wait()
    t.slept.clear()
    t.now += 0.002
    limiter.wait()
    assert t.slept and t.slept[0] > 0.01     # no burst of catch-up frames


def test_run_app_polls_every_frame_and_returns(monkeypatch):
    class CountingController(StillController):
        polls = 0

        def poll(self):
            CountingController.polls += 1

    controller = CountingController(idle_view())
    run_app(controller, Config(), size=(800, 480), max_frames=5)
    assert CountingController.polls == 5
    assert not pygame.display.get_init() or pygame.display.get_surface() is None
