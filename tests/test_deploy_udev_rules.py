"""systemd/99-tafl.rules: every line parses as udev syntax, and the rules name the right devices.

udev itself is not on every development machine (and `udevadm verify` only
exists from systemd 254), so the syntax is checked by a parser of udev's rule
grammar (udev(7)), and the behaviour by evaluating the rules, the way udev
does, on the property sets real devices have: a CH340 GRBL board must become
/dev/tafl-gantry, the Raspberry Pi's UART and its codec's video nodes must not.
"""
from __future__ import annotations

import fnmatch
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[1] / "systemd" / "99-tafl.rules"

MATCH_OPS = {"==", "!="}
ASSIGN_OPS = {"=", "+=", "-=", ":="}
# key -> (takes an {attribute}, operators it allows)
KEYS = {
    "ACTION": (False, MATCH_OPS), "DEVPATH": (False, MATCH_OPS), "KERNEL": (False, MATCH_OPS),
    "KERNELS": (False, MATCH_OPS), "SUBSYSTEM": (False, MATCH_OPS), "SUBSYSTEMS": (False, MATCH_OPS),
    "DRIVER": (False, MATCH_OPS), "DRIVERS": (False, MATCH_OPS), "ATTRS": (True, MATCH_OPS),
    "TAGS": (False, MATCH_OPS), "TEST": (True, MATCH_OPS), "PROGRAM": (False, MATCH_OPS),
    "RESULT": (False, MATCH_OPS), "CONST": (True, MATCH_OPS),
    "NAME": (False, MATCH_OPS | ASSIGN_OPS), "SYMLINK": (False, MATCH_OPS | ASSIGN_OPS),
    "TAG": (False, MATCH_OPS | ASSIGN_OPS), "ENV": (True, MATCH_OPS | ASSIGN_OPS),
    "ATTR": (True, MATCH_OPS | ASSIGN_OPS), "SYSCTL": (True, MATCH_OPS | ASSIGN_OPS),
    "OWNER": (False, ASSIGN_OPS), "GROUP": (False, ASSIGN_OPS), "MODE": (False, ASSIGN_OPS),
    "SECLABEL": (True, ASSIGN_OPS), "RUN": (None, ASSIGN_OPS), "IMPORT": (True, ASSIGN_OPS),
    "OPTIONS": (False, ASSIGN_OPS), "LABEL": (False, {"="}), "GOTO": (False, {"="}),
}
PAIR = re.compile(r'\s*([A-Z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*')


@dataclass
class Pair:
    key: str
    attr: str | None
    op: str
    value: str


@dataclass
class Rule:
    line: int
    pairs: list[Pair]


def parse_rules(text: str) -> list[Rule]:
    """Rules of a udev rules file; raises ValueError naming the line for any syntax error."""
    rules: list[Rule] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
        if raw.endswith("\\"):
            pending += raw[:-1]
            continue
        line = (pending + raw).strip()
        pending = ""
        if not line or line.startswith("#"):
            continue
        pairs: list[Pair] = []
        pos = 0
        while pos < len(line):
            m = PAIR.match(line, pos)
            if not m:
                raise ValueError(f"line {start}: cannot parse {line[pos:]!r}")
            key, attr, op, value = m.groups()
            if key not in KEYS:
                raise ValueError(f"line {start}: unknown key {key}")
            takes_attr, ops = KEYS[key]
            if takes_attr is True and attr is None:
                raise ValueError(f"line {start}: {key} needs an {{attribute}}")
            if takes_attr is False and attr is not None:
                raise ValueError(f"line {start}: {key} takes no {{attribute}}")
            if op not in ops:
                raise ValueError(f"line {start}: {key} does not take {op}")
            pairs.append(Pair(key, attr, op, value))
            pos = m.end()
            if pos < len(line):
                if line[pos] != ",":
                    raise ValueError(f"line {start}: expected ',' at {line[pos:]!r}")
                pos += 1
                if pos >= len(line.rstrip()):
                    raise ValueError(f"line {start}: trailing comma")
        rules.append(Rule(start, pairs))
    if pending:
        raise ValueError("file ends inside a continued line")
    return rules


@dataclass
class Device:
    """What udev knows about a device when our rules run (after 60-*.rules)."""

    subsystem: str
    kernel: str
    attrs: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    parents: list[dict[str, str]] = field(default_factory=list)   # keys: DRIVERS, KERNELS, SUBSYSTEMS, ATTRS{x}
    action: str = "add"
    symlinks: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)


def _matches(value: str, pattern: str) -> bool:
    return any(fnmatch.fnmatchcase(value, alt) for alt in pattern.split("|"))


PARENT_KEYS = {"DRIVERS", "KERNELS", "SUBSYSTEMS", "ATTRS"}


def apply_rules(rules: list[Rule], device: Device) -> Device:
    """Run the rules on `device` as udev does (match keys, GOTO forward to LABEL, assignments)."""
    labels = {r.pairs[0].value: i for i, r in enumerate(rules)
              if len(r.pairs) == 1 and r.pairs[0].key == "LABEL"}
    index = 0
    while index < len(rules):
        rule = rules[index]
        index += 1
        own = [p for p in rule.pairs if p.op in MATCH_OPS and p.key not in PARENT_KEYS]
        parent = [p for p in rule.pairs if p.op in MATCH_OPS and p.key in PARENT_KEYS]
        ok = True
        for p in own:
            actual = {"ACTION": device.action, "SUBSYSTEM": device.subsystem,
                      "KERNEL": device.kernel}.get(p.key)
            if p.key == "ATTR":
                actual = device.attrs.get(p.attr or "", "")
            elif p.key == "ENV":
                actual = device.env.get(p.attr or "", "")
            assert actual is not None, f"evaluator does not know {p.key}"
            if _matches(actual, p.value) != (p.op == "=="):
                ok = False
        if ok and parent:
            # All parent keys of one rule must match the same device up the chain.
            ok = any(all(_matches(node.get(f"ATTRS{{{p.attr}}}" if p.key == "ATTRS" else p.key, ""),
                                  p.value) == (p.op == "==") for p in parent)
                     for node in device.parents)
        if not ok:
            continue
        for p in rule.pairs:
            if p.op in MATCH_OPS or p.key == "LABEL":
                continue
            if p.key == "GOTO":
                index = labels[p.value] + 1
            elif p.key == "SYMLINK":
                device.symlinks.append(p.value)
            elif p.key == "TAG":
                device.tags.append(p.value)
            elif p.key == "ENV":
                device.env[p.attr or ""] = p.value
    return device


def usb_tty(vendor: str, product: str, kernel: str = "ttyACM0", **env: str) -> Device:
    return Device(
        subsystem="tty", kernel=kernel, env={"ID_BUS": "usb", **env},
        parents=[{"KERNELS": "1-1.2:1.0", "SUBSYSTEMS": "usb", "DRIVERS": "cdc_acm"},
                 {"KERNELS": "1-1.2", "SUBSYSTEMS": "usb", "DRIVERS": "usb",
                  "ATTRS{idVendor}": vendor, "ATTRS{idProduct}": product}])


def uvc_node(index: str, capabilities: str) -> Device:
    return Device(
        subsystem="video4linux", kernel=f"video{index}", attrs={"index": index},
        env={"ID_BUS": "usb", "ID_V4L_CAPABILITIES": capabilities},
        parents=[{"KERNELS": "1-1.3:1.0", "SUBSYSTEMS": "usb", "DRIVERS": "uvcvideo"},
                 {"KERNELS": "1-1.3", "SUBSYSTEMS": "usb", "DRIVERS": "usb",
                  "ATTRS{idVendor}": "046d", "ATTRS{idProduct}": "0825"}])


@pytest.fixture(scope="module")
def rules() -> list[Rule]:
    return parse_rules(RULES.read_text())


def test_every_line_is_valid_udev_syntax(rules: list[Rule]) -> None:
    assert len(rules) >= 8
    labels = [r for r in rules if r.pairs[0].key == "LABEL"]
    assert all(len(r.pairs) == 1 for r in labels), "a LABEL stands on its own line"
    # GOTO only jumps forward, to a LABEL that exists.
    for i, rule in enumerate(rules):
        for pair in rule.pairs:
            if pair.key == "GOTO":
                later = [r.pairs[0].value for r in rules[i + 1:] if r.pairs[0].key == "LABEL"]
                assert pair.value in later, f"line {rule.line}: GOTO {pair.value} has no LABEL after it"


@pytest.mark.parametrize("bad, message", [
    ('SUBSYSTEM=="tty" SYMLINK+="x"', "expected ','"),
    ('SUBSYSTEM=="tty", SYMLNK+="x"', "unknown key SYMLNK"),
    ('ACTION="add"', "ACTION does not take ="),
    ('ATTRS=="x"', "needs an {attribute}"),
    ('SUBSYSTEM=="tty", MODE=="0660"', "MODE does not take =="),
    ("SUBSYSTEM=='tty'", "cannot parse"),
    ('SUBSYSTEM=="tty",', "trailing comma"),
    ('SUBSYSTEM=="tty", ENV{X}="1", \\', "continued line"),
])
def test_the_parser_rejects_broken_lines(bad: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_rules(bad)


def test_continued_lines_and_comments_parse() -> None:
    rules = parse_rules('# c\n\nSUBSYSTEM=="tty", \\\n  SYMLINK+="a"\n')
    assert [(p.key, p.op, p.value) for p in rules[0].pairs] == [("SUBSYSTEM", "==", "tty"),
                                                              ("SYMLINK", "+=", "a")]
    assert rules[0].line == 3


@pytest.mark.parametrize("vendor, product, chip", [
    ("2341", "0043", "Arduino Uno R3"),
    ("2341", "0001", "Arduino Uno"),
    ("1a86", "7523", "CH340"),
    ("0403", "6001", "FTDI FT232R"),
    ("10c4", "ea60", "CP210x"),
])
def test_grbl_controllers_become_tafl_gantry(rules, vendor: str, product: str, chip: str) -> None:
    device = apply_rules(rules, usb_tty(vendor, product, kernel="ttyUSB0"))
    assert device.symlinks == ["tafl-gantry"], chip
    assert device.tags == ["systemd"]
    assert device.env.get("ID_MM_DEVICE_IGNORE") == "1"


def test_other_serial_devices_are_left_alone(rules) -> None:
    assert apply_rules(rules, usb_tty("2341", "0042")).symlinks == []        # a Mega, not an Uno
    assert apply_rules(rules, usb_tty("0403", "6015")).symlinks == []        # FT231X
    uart = Device(subsystem="tty", kernel="ttyAMA0",
                  parents=[{"KERNELS": "fe201000.serial", "SUBSYSTEMS": "amba", "DRIVERS": "uart-pl011"}])
    assert apply_rules(rules, uart).symlinks == []
    removed = usb_tty("1a86", "7523")
    removed.action = "remove"
    assert apply_rules(rules, removed).symlinks == []


def test_the_uvc_capture_node_becomes_tafl_camera(rules) -> None:
    device = apply_rules(rules, uvc_node("0", ":capture:"))
    assert device.symlinks == ["tafl-camera"]
    assert device.tags == ["systemd"]
    assert apply_rules(rules, uvc_node("1", ":")).symlinks == []            # the metadata node


def test_the_raspberry_pi_codec_is_not_the_camera(rules) -> None:
    codec = Device(subsystem="video4linux", kernel="video10", attrs={"index": "0"},
                   env={"ID_V4L_CAPABILITIES": ":capture:"},
                   parents=[{"KERNELS": "bcm2835-codec", "SUBSYSTEMS": "platform",
                             "DRIVERS": "bcm2835-codec"}])
    assert apply_rules(rules, codec).symlinks == []


def test_a_serial_device_never_becomes_the_camera(rules) -> None:
    # The tty section ends with GOTO tafl_end: a CH340 must not fall through to the camera rule.
    device = usb_tty("1a86", "7523")
    device.attrs["index"] = "0"
    device.env["ID_V4L_CAPABILITIES"] = ":capture:"
    assert apply_rules(rules, device).symlinks == ["tafl-gantry"]


def test_the_documented_serial_number_example_parses_and_narrows(rules) -> None:
    example = next(line.lstrip("# ").strip() for line in RULES.read_text().splitlines()
                   if line.startswith("#") and "SUBSYSTEM==" in line and "ID_SERIAL_SHORT}==" in line)
    narrowed = parse_rules(example)
    serial = next(p.value for p in narrowed[0].pairs if p.attr == "ID_SERIAL_SHORT")
    good = Device(subsystem="tty", kernel="ttyACM0", env={"ID_SERIAL_SHORT": serial},
                  parents=usb_tty("2341", "0043").parents)
    other = Device(subsystem="tty", kernel="ttyACM1", env={"ID_SERIAL_SHORT": "0000"},
                   parents=usb_tty("2341", "0043").parents)
    assert apply_rules(narrowed, good).symlinks == ["tafl-gantry"]
    assert apply_rules(narrowed, other).symlinks == []


def test_udevadm_verify_when_available() -> None:
    udevadm = shutil.which("udevadm")
    if udevadm is None:
        pytest.skip("udevadm is not installed here (the parser above checks the syntax)")
    probe = subprocess.run([udevadm, "verify", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("this udevadm has no 'verify' (it came with systemd 254)")
    result = subprocess.run([udevadm, "verify", "--no-style", str(RULES)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
