"""Records, in the built package, the checkout it was built from (agent_tools/_checkout.txt), so that a client
installed with `pip install ./clients/python` (a copy in site-packages, away from the checkout) still finds that
checkout's launcher. The path is only a hint: agent_tools._launcher checks the checkout it names exactly as it checks
the one a package sits in, and refuses it on the same grounds. Everything else is in pyproject.toml."""

import os

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildPyRecordingTheCheckout(build_py):
    def run(self):
        super().run()
        checkout = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
        # only a real checkout is named: pip building a copy of the sources elsewhere (an sdist) records nothing
        if os.path.isfile(os.path.join(checkout, "agent-tools")) and os.path.isfile(os.path.join(checkout, "pom.xml")):
            with open(os.path.join(self.build_lib, "agent_tools", "_checkout.txt"), "w", encoding="utf-8") as f:
                f.write(checkout + "\n")


setup(cmdclass={"build_py": BuildPyRecordingTheCheckout})
