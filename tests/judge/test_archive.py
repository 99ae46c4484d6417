"""Packages in memory and in zips: the same hash as the folder, and hostile archives refused."""

import io
import stat
import zipfile
from pathlib import Path

import pytest

from judge import PackageError, load_problem
from judge.packages.archive import (
    MAX_TOTAL_BYTES,
    check_files,
    files_hash,
    folder_files,
    read_zip,
    unpacked,
    write_files,
    write_zip,
)
from judge.packages.package_hash import content_hash
from judge.packages.package_reader import MAX_PACKAGE_FILE_BYTES
from judge.validate import NO_ACCEPTED, package_errors, steps

ROOT = Path(__file__).resolve().parents[2]
BANK = ROOT / "problems"
NAMES = BANK / "checkpoint_names"


def zip_of(entries: dict, *, symlinks=()) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED
            if name in symlinks:
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def zip_folder_like_the_zip_command(folder: Path) -> bytes:
    """What `cd problems && zip -r x.zip checkpoint_names` gives: the folder, its sub-folders as
    entries of their own, then the files."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            archive.write(path, path.relative_to(folder.parent).as_posix())
        archive.write(folder, folder.name)
    return buffer.getvalue()


@pytest.mark.parametrize(
    "folder", sorted(p for p in BANK.iterdir() if (p / "problem.toml").exists()), ids=lambda p: p.name
)
def test_files_hash_like_the_folder_they_come_from(folder):
    assert files_hash(folder_files(folder)) == content_hash(folder) == load_problem(folder).content_hash


def test_the_hash_orders_paths_as_the_folder_walk_does(tmp_path):
    files = {"a.txt": "1", "a/b.txt": "2", "a-b": "3", "problem.toml": "x", "windows.txt": "line\r\nline\r\n"}
    write_files(files, tmp_path / "pkg")
    assert folder_files(tmp_path / "pkg") == files  # \r\n kept: the text is the bytes
    assert files_hash(files) == content_hash(tmp_path / "pkg")


def test_a_zip_of_a_bank_folder_reads_as_the_folder_and_exports_back_the_same():
    top, files = read_zip(zip_folder_like_the_zip_command(NAMES))
    assert top == "checkpoint_names" and files == folder_files(NAMES)
    exported = write_zip(files, "checkpoint_names")
    assert exported == write_zip(dict(reversed(list(files.items()))), "checkpoint_names")  # byte for byte
    assert read_zip(exported) == (top, files)


def test_a_zip_of_the_folder_contents_works_too():
    files = folder_files(NAMES)
    assert read_zip(zip_of(files)) == (None, files)


def test_zip_artifacts_are_left_out():
    files = folder_files(NAMES)
    entries = {f"checkpoint_names/{k}": v for k, v in files.items()}
    entries["__MACOSX/checkpoint_names/._problem.toml"] = b"\x00\x05\x16\x07"
    entries["checkpoint_names/submissions/__pycache__/x.cpython-311.pyc"] = b"\xff\x00"
    assert read_zip(zip_of(entries)) == ("checkpoint_names", files)


@pytest.mark.parametrize("name", ["../evil.py", "/etc/passwd", "pkg/../../evil.py", "pkg\\..\\evil.py", "pkg//x.py"])
def test_paths_escaping_the_folder_are_refused(name):
    with pytest.raises(PackageError, match="not a path inside the package folder"):
        read_zip(zip_of({"pkg/problem.toml": "x", name: "boom"}))


def test_links_are_refused():
    with pytest.raises(PackageError, match="symbolic link"):
        read_zip(zip_of({"pkg/problem.toml": "x", "pkg/statement.md": "/etc/passwd"}, symlinks={"pkg/statement.md"}))


def test_a_zip_bomb_stops_at_the_file_limit_without_inflating_it():
    bomb = zip_of({"pkg/problem.toml": "x", "pkg/statement.md": b"\0" * (64 << 20)})
    assert len(bomb) < 100_000
    with pytest.raises(PackageError, match=f"larger than {MAX_PACKAGE_FILE_BYTES} bytes"):
        read_zip(bomb)


def test_many_files_each_under_the_limit_are_refused_in_total():
    count = MAX_TOTAL_BYTES // MAX_PACKAGE_FILE_BYTES + 1
    entries = {f"pkg/submissions/accepted/s{i}.py": b"#" * MAX_PACKAGE_FILE_BYTES for i in range(count)}
    with pytest.raises(PackageError, match="more than"):
        read_zip(zip_of({"pkg/problem.toml": "x", **entries}))


@pytest.mark.parametrize(
    "data, message",
    [
        (b"not a zip", "is not a zip archive"),
        (zip_of({}), "holds no files"),
        (zip_of({"a/problem.toml": "x", "b/problem.toml": "y"}), "expected problem.toml at the top"),
        (zip_of({"pkg/problem.toml": "x", "pkg/starter.py": b"\xff\xfe"}), "is not UTF-8 text"),
    ],
)
def test_other_broken_archives_are_refused_with_a_reason(data, message):
    with pytest.raises(PackageError, match=message):
        read_zip(data)


def test_load_errors_name_the_file_inside_the_package_not_a_temporary_folder():
    files = folder_files(NAMES)
    files["problem.toml"] = files["problem.toml"].replace('device = "cpu"', 'device = "cpu"\ncolour = "blue"')
    with pytest.raises(PackageError) as info:
        check_files(files)
    assert (info.value.path, info.value.key) == ("problem.toml", "colour")
    assert str(info.value) == "problem.toml, key 'colour': unknown key"


def test_the_folder_must_carry_the_slug_as_in_the_bank():
    with pytest.raises(PackageError, match="must equal the folder name 'renamed'"):
        check_files(folder_files(NAMES), "renamed")


def test_validation_steps_are_the_reference_then_each_packaged_submission():
    with unpacked(folder_files(NAMES)) as problem:
        names = [step.name(problem) for step in steps(problem)]
        assert names[0] == "reference.py" and len(names) == 1 + sum(map(len, problem.submissions.values()))
        assert "submissions/policy_violation/misspelled_name.py" in names
        assert package_errors(problem) == []
    files = {k: v for k, v in folder_files(NAMES).items() if "/accepted/" not in k}
    with unpacked(files) as problem:
        assert package_errors(problem) == [NO_ACCEPTED]
