"""Output paths of `softlin verify` (issue 41, item 3): --json, --junit and --out write into a
regular file or a directory; a symbolic link is followed and its target written; a character device
or a FIFO is written through as a stream, never replaced by a regular file; "-" is stdout. Each case
runs the command as a user does (`softlin.cli.main`)."""

import json
import os
import stat
import threading

import pytest

from softlin import cli

# One xdist worker runs this module's tests one after another (they each run lemma-2.1 at quick).
pytestmark = pytest.mark.xdist_group("cli-outputs")

QUICK = ["verify", "lemma-2.1", "--profile", "quick", "--quiet"]


def test_a_symlink_given_as_junit_and_json_is_followed_and_its_target_written(tmp_path):
    """Before: both links became regular files and the targets kept their old bytes."""
    (tmp_path / "target.xml").write_text("old")
    (tmp_path / "target.json").write_text("old")
    (tmp_path / "link.xml").symlink_to("target.xml")
    (tmp_path / "link.json").symlink_to(tmp_path / "target.json")
    argv = QUICK + ["--out", str(tmp_path / "out")]
    argv += ["--junit", str(tmp_path / "link.xml"), "--json", str(tmp_path / "link.json")]
    assert cli.main(argv) == 0
    assert (tmp_path / "link.xml").is_symlink() and (tmp_path / "link.json").is_symlink()
    assert (tmp_path / "target.xml").read_text().startswith("<?xml")
    assert json.loads((tmp_path / "target.json").read_text())[0]["claim"] == "lemma-2.1"
    # no temporary file left beside the targets
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "link.json",
        "link.xml",
        "out",
        "target.json",
        "target.xml",
    ]


def _reader(path, got: list):
    def read():
        with open(path, "rb") as f:  # blocks until the writer opens the FIFO
            got.append(f.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _null_device(tmp_path):
    """A character device to write to. As root a private copy of /dev/null (major 1, minor 3) in
    tmp_path, so that a regression replaces that entry, not the machine's /dev/null; otherwise
    /dev/null itself (which a non-root process cannot replace)."""
    if os.geteuid() != 0:
        return "/dev/null"
    path = tmp_path / "null"
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return str(path)


def test_a_fifo_and_a_character_device_are_written_as_streams_not_replaced(tmp_path):
    """Before: --junit /dev/null replaced the device entry by a regular file (as root), and a FIFO
    became a regular file its reader never saw."""
    fifo = tmp_path / "junit.fifo"
    os.mkfifo(fifo)
    device = _null_device(tmp_path)
    got: list[bytes] = []
    reader = _reader(fifo, got)
    argv = QUICK + ["--out", str(tmp_path / "out"), "--junit", str(fifo), "--json", device]
    assert cli.main(argv) == 0
    reader.join(timeout=60)
    assert got and got[0].startswith(b"<?xml") and b"lemma-2.1" in got[0]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert stat.S_ISCHR(os.stat(device).st_mode)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_dev_null_as_junit_and_json_keeps_the_device(tmp_path, capsys):
    """/dev/null itself, the case of the issue: still a character device afterwards. --junit - goes
    to stdout, and the verdict table then stays off stdout."""
    argv = ["verify", "lemma-2.1", "--profile", "quick", "--out", str(tmp_path / "out")]
    argv += ["--json", "/dev/null", "--junit", "-"]
    assert cli.main(argv) == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    out = capsys.readouterr().out
    assert out.startswith("<?xml") and out.rstrip().endswith("</testsuites>")


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--json", "-", "--junit", "-"], "--json - and --junit - would all write to stdout"),
        (["--github", "--junit", "-"], "--junit - and --github would all write to stdout"),
        (["--junit", "{tmp}"], "it is a directory; give a file name"),
        (["--json", "{tmp}/nowhere/x.json"], "does not exist"),
        (["--out", "/dev/full"], "'/dev/full' is a character device, not a directory"),
        (["--out", "{tmp}/plain/sub"], "is a regular file, not a directory"),
    ],
)
def test_bad_output_paths_are_refused_before_any_work_on_one_line(tmp_path, capsys, argv, fragment):
    (tmp_path / "plain").write_text("x")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert cli.main(["verify", "lemma-2.1", "--dry-run"] + argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1, err


def test_a_socket_is_refused_as_an_output_file(tmp_path, capsys):
    import socket

    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        assert cli.main(["verify", "lemma-2.1", "--dry-run", "--junit", str(path)]) == 2
    err = capsys.readouterr().err
    assert "it is a socket; give a regular file, a character device or a FIFO" in err
