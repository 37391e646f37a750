"""What every screen shares: the controller, config, texts, layout, the visitor's rewards, navigation.

A screen is a small object with ``enter``, ``handle``, ``update`` and
``draw``; it reads the latest `ControllerView` from the context (taken once
per frame by the app) and never blocks.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Protocol

import pygame

from kiosk.i18n import Texts
from kiosk.rewards import RewardSession
from kiosk.ui import palette
from kiosk.ui.layout import Layout
from kiosk.ui.widgets import Buttons, draw_flag, draw_text

# States in which the visitor is expected to act (idle time counts only there).
VISITOR_STATES = frozenset({"idle", "visitor_turn", "fix_board", "place_piece", "game_over", "paused_error"})
ROBOT_STATES = frozenset({"setup", "thinking", "robot_moving", "verify", "clearing"})


@dataclass
class GameRequest:
    """What the visitor chose on the start screens; kept so 'play again' can repeat it."""

    variant: str
    options: dict[str, str]
    visitor_side: Any                # engine Side
    level: str
    mode: str = "visitor"            # "referee": two visitors, the robot as referee (kiosk/exhibit.py)
    match: str = "single"            # a York match format (kiosk/match.py), or "next": its next game


@dataclass
class UiContext:
    controller: Any
    config: Any
    texts: Texts
    layout: Layout
    world: Any = None
    rewards: RewardSession = field(default_factory=RewardSession)
    now: float = 0.0                 # seconds, from the app's clock
    view: Any = None                 # the controller's view taken this frame
    navigate: Callable[..., None] = lambda name, **kw: None
    request: GameRequest | None = None
    finished_moves: list[Any] = field(default_factory=list)   # the last game's moves, for attract replay
    finished_variant: str | None = None
    quit_requested: bool = False
    exit_status: int = 0               # lockdown.STAFF_EXIT_STATUS after staff's "exit to the system"
    staff_unlocked: bool = False
    focus: Any = None                  # kiosk.ui.focus.Focus: the keyboard focus ring (set by the app)

    @property
    def match(self) -> Any:
        """The York match of this visit (kiosk/match.py): the controller keeps and journals it."""
        return getattr(self.view, "match", None)

    def t(self, key: str, default: str | None = None, **args: object) -> str:
        return self.texts.get(key, default, **args)

    def schemes(self) -> tuple[palette.PieceScheme, ...]:
        p = self.config.pieces
        return palette.piece_schemes(tuple(p.attacker_rgb), tuple(p.defender_rgb), tuple(p.crown_rgb))

    def piece_scheme(self) -> palette.PieceScheme:
        schemes = self.schemes()
        index = self.rewards.colour_scheme if self.rewards.unlocks.colours else 0
        return schemes[index % len(schemes)]

    def shaded(self) -> bool:
        return self.rewards.unlocks.shaded and self.rewards.use_shaded

    def board_spec_for(self, variant: str | None) -> Any:
        """The physical board spec a variant is played on (Tablut on 9 x 9, the rest on 11 x 11)."""
        size = 9 if variant == "tablut" else 11
        for spec in self.config.boards.values():
            if spec.squares == size:
                return spec
        return self.config.board_spec

    def draw_flag_button(self, surface: pygame.Surface, buttons: Buttons) -> None:
        """The language switch: the flag of the language it switches *to*, top right."""
        rect = self.layout.flag_rect
        nxt = self.texts.next_language()
        pygame.draw.rect(surface, palette.PANEL, rect, border_radius=12)
        pygame.draw.rect(surface, palette.PANEL_EDGE, rect, 2, border_radius=12)
        flag = pygame.Rect(0, 0, int(rect.width * 0.78), int(rect.width * 0.78 * 0.6))
        flag.midtop = (rect.centerx, rect.top + rect.height // 8)
        draw_flag(surface, flag, nxt)
        draw_text(surface, self.texts.get(f"language.name_{nxt}"), (rect.centerx, rect.bottom - rect.height // 10),
                  max(12, rect.height // 6), anchor="midbottom")
        buttons.add("language", rect, self.switch_language)

    def leave_result(self, where: str, **kwargs: Any) -> None:
        """After a game's result: go on, to a new game ("start") or to "attract".

        The board is not cleared: the robot already resets it from the final
        position to the next start position while the result shows
        (kiosk/turns.py), so the next game starts as soon as that is done.
        ``repeat=True`` with "start" plays the same game, side and level again
        without asking: "Play again" means this game once more.
        """
        if where == "attract":
            self.rewards.reset()
        self.navigate(where, **kwargs)

    def switch_language(self) -> None:
        self.texts.set_language(self.texts.next_language())


class Screen(Protocol):
    name: str

    def enter(self, ctx: UiContext, **kwargs: Any) -> None: ...
    def handle(self, event: pygame.event.Event, ctx: UiContext) -> None: ...
    def update(self, ctx: UiContext, dt: float) -> None: ...
    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None: ...
    def wants_key(self, event: pygame.event.Event, ctx: UiContext) -> bool: ...
    def keyboard_on_board(self, ctx: UiContext) -> bool: ...
    def focus_past_edge(self, direction: tuple[int, int], ctx: UiContext) -> None: ...


class BaseScreen:
    """Default behaviour: a list of buttons hit-tested on touch/click; subclasses draw."""

    name = "base"

    def __init__(self) -> None:
        self.buttons = Buttons()
        self.entered_at = 0.0

    def enter(self, ctx: UiContext, **kwargs: Any) -> None:
        self.entered_at = ctx.now

    def handle(self, event: pygame.event.Event, ctx: UiContext) -> None:
        if event.type == pygame.MOUSEBUTTONDOWN and event.button == 1:
            self.buttons.press(event.pos)

    def update(self, ctx: UiContext, dt: float) -> None:
        pass

    def draw(self, surface: pygame.Surface, ctx: UiContext) -> None:
        raise NotImplementedError

    # -- the keyboard (kiosk/ui/focus.py): by default every key goes to the focus ring --
    def wants_key(self, event: pygame.event.Event, ctx: UiContext) -> bool:
        """True for a key this screen uses itself (the board's cursor, the rules' pages, PIN digits)."""
        return False

    def keyboard_on_board(self, ctx: UiContext) -> bool:
        """True while the keys drive something other than the buttons (then no ring is drawn)."""
        return False

    def focus_past_edge(self, direction: tuple[int, int], ctx: UiContext) -> None:
        """An arrow found no button that way; a screen may take the keyboard elsewhere."""
