"""The loop's pieces that are not drawing: the frame limiter and run_app's contract."""
import pygame

from calibration.config import Config
from kiosk.ui.app import FrameLimiter, run_app
from kiosk.ui.screenshots import StillView, idle_view


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
    class CountingController(StillView):
        polls = 0

        def poll(self):
            CountingController.polls += 1

    controller = CountingController(idle_view())
    run_app(controller, Config(), size=(800, 480), max_frames=5)
    assert CountingController.polls == 5
    assert not pygame.display.get_init() or pygame.display.get_surface() is None


def _post_quit_each_frame():
    pygame.event.post(pygame.event.Event(pygame.QUIT))


def test_a_window_closes_on_quit_with_exit_status_zero():
    controller = StillView(idle_view())
    status = run_app(controller, Config(), size=(800, 480), max_frames=50, on_frame=_post_quit_each_frame)
    assert status == 0


def test_the_locked_kiosk_ignores_quit_and_reports_ready_once(monkeypatch):
    for hint in ("SDL_GRAB_KEYBOARD", "SDL_NO_SIGNAL_HANDLERS", "SDL_VIDEO_MINIMIZE_ON_FOCUS_LOSS",
                 "SDL_QUIT_ON_LAST_WINDOW_CLOSE", "SDL_VIDEO_ALLOW_SCREENSAVER", "SDL_KMSDRM_REQUIRE_DRM_MASTER"):
        monkeypatch.setenv(hint, "")                # recorded, so teardown undoes what run_app sets
        monkeypatch.delenv(hint)
    frames, ready = [], []

    def on_frame():
        frames.append(1)
        _post_quit_each_frame()

    controller = StillView(idle_view())
    status = run_app(controller, Config(), size=(800, 480), fullscreen=True, max_frames=8,
                     on_ready=lambda: ready.append(1), on_frame=on_frame)
    assert len(frames) == 8 and ready == [1] and status == 0


def test_staff_exit_to_the_system_returns_the_status_the_service_does_not_restart():
    from kiosk import lockdown
    from kiosk.ui.context import UiContext
    from kiosk.ui.staff import _exit_to_system

    ctx = UiContext.__new__(UiContext)
    ctx.exit_status, ctx.quit_requested = 0, False
    _exit_to_system(ctx)
    assert ctx.quit_requested and ctx.exit_status == lockdown.STAFF_EXIT_STATUS == 100
