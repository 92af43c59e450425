"""constraints.txt: one resolved set of every package, for ./run, CI and the Pi installer.

Read offline: nothing is downloaded here (``./run pi-wheels`` checks a Pi's wheels by
hand, docs/dependencies.md records its result).
"""

from __future__ import annotations

import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from risktable.provision.installer import constraints
from risktable.provision.pi_model import PI_GPIO_PACKAGES
from tests.support.tools import ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def pins() -> dict[str, Version]:
    """Each package of constraints.txt and its one version."""
    found: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        requirement = Requirement(line)
        (spec,) = requirement.specifier  # exactly one: ==version
        assert spec.operator == "==", line
        name = canonicalize_name(requirement.name)
        assert name not in found, f"{name} pinned twice"
        found[name] = Version(spec.version)
    return found


def declared() -> list[Requirement]:
    """The runtime dependencies and every extra's, as pyproject.toml states them."""
    lines = [*PROJECT["dependencies"]]
    for extra in PROJECT["optional-dependencies"].values():
        lines += extra
    return [Requirement(line) for line in lines]


def test_every_declared_dependency_is_pinned_within_its_range() -> None:
    pinned = pins()
    for requirement in declared():
        name = canonicalize_name(requirement.name)
        if name == canonicalize_name(PROJECT["name"]):
            continue  # an extra that names another of ours ("risktable[camera-read]")
        assert name in pinned, f"{name} is not in constraints.txt: run ./run constraints"
        assert requirement.specifier.contains(pinned[name], prereleases=True), (
            f"{name}=={pinned[name]} is outside pyproject.toml's {requirement.specifier}")


def test_the_pi_gpio_backend_the_installer_adds_is_pinned() -> None:
    pinned = pins()
    assert all(canonicalize_name(package) in pinned for package in PI_GPIO_PACKAGES)


def test_every_runtime_dependency_is_capped() -> None:
    # Below its next major version (the next minor for a 0.x package): a new major
    # release is taken on purpose, with ./run constraints and the tests, never by chance.
    uncapped = [line for line in PROJECT["dependencies"] + PROJECT["optional-dependencies"]["demo"]
                if not any(s.operator in ("<", "==") for s in Requirement(line).specifier)]
    assert uncapped == []


def test_the_installer_ships_the_same_file() -> None:
    assert constraints().read_text() == (ROOT / "constraints.txt").read_text()
