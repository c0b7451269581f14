"""Which `agent-tools` the clients run by default, and why it can be trusted: the clients start it with the user's
environment (AGENT_TOOLS_ACCESS_TOKEN among it) and believe its answers, so a launcher another local user could have
written, or could replace, is never run.

Trusted, in this order: AGENT_TOOLS_COMMAND (a command line the user set; a path alone, or any command without
`serve`, gets `serve --stdio` added); the launcher of the checkout this package sits in (clients/python/agent_tools),
when the checkout proves to be one; the launcher of the checkout the package was built from (`pip install
./clients/python` records it in agent_tools/_checkout.txt), when that checkout proves to be one; `agent-tools` on PATH
(the user's own choice of folders). A checkout proves itself when its `agent-tools` is a regular file with a `pom.xml` beside it,
the launcher is owned by the user or root and writable by nobody else, and so is every folder from the checkout's up
to /: owned by the user or root, not writable by others (group-writable only by the user's private group). A folder
further up may be a sticky one (/tmp, mode 1777: /tmp/mine/checkout is fine), since nobody else can rename or
replace what the user owns in it; the checkout's own folder and the one it is in may not (/tmp/checkout is
refused): anyone may add files there. Links are resolved first and the real
path is what is checked and run. A package unpacked under /tmp/X/Y (pip --target, a wheel) has no checkout: /tmp's
`agent-tools`, if someone planted one, is refused (not owned by the user, or in a folder anyone can write).
"""

import os
import shlex
import shutil
import stat

__all__ = ["LauncherNotFound", "default_command", "checkout_launcher", "launcher_in", "recorded_checkout"]

# what the clients run the launcher with
_SERVE = ["serve", "--stdio"]


class LauncherNotFound(OSError):
    """No launcher the client can trust: the message says what was looked at and what to set."""


def default_command(package_dir=None, env=None):
    """AGENT_TOOLS_COMMAND (split as a shell would), else this checkout's launcher (checkout_launcher), else
    `agent-tools` on PATH; with `serve --stdio`. Raises LauncherNotFound naming what to set when none is found."""
    env = os.environ if env is None else env
    if env.get("AGENT_TOOLS_COMMAND", "").strip():
        words = shlex.split(env["AGENT_TOOLS_COMMAND"])
        # a path alone (or `java -jar agent-tools.jar`) is what most people set first: it is run as the clients need
        return words if "serve" in words else [*words, *_SERVE]
    package_dir = package_dir or os.path.dirname(os.path.abspath(__file__))
    launcher, refused = checkout_launcher(package_dir)
    if launcher is None:
        recorded = recorded_checkout(package_dir)
        if recorded is not None:
            launcher, why = launcher_in(recorded)
            refused = refused if why is None else why if refused is None else refused + "; " + why
    if launcher is None:
        launcher = shutil.which("agent-tools", path=env.get("PATH", os.defpath))
    if launcher is None:
        raise LauncherNotFound(
            "no agent-tools launcher to run: AGENT_TOOLS_COMMAND is not set, agent-tools is not on PATH%s; set "
            "AGENT_TOOLS_COMMAND (such as '/path/to/checkout/agent-tools serve --stdio'), pass command=[...] to the "
            "client, or put agent-tools on PATH" % ("" if refused is None else ", and " + refused))
    return [launcher, *_SERVE]


def checkout_launcher(package_dir):
    """(the real path of the checkout's launcher, None) when the package at package_dir sits in a checkout that
    proves to be one (see the module's doc); else (None, why not, or None when there is no launcher there at all)."""
    return launcher_in(os.path.join(package_dir, "..", "..", ".."))


def recorded_checkout(package_dir):
    """The checkout the installed package was built from (agent_tools/_checkout.txt, written by setup.py), or None."""
    try:
        with open(os.path.join(package_dir, "_checkout.txt"), encoding="utf-8") as f:
            path = f.readline().strip()
    except OSError:
        return None
    return path if os.path.isabs(path) else None


def launcher_in(folder):
    """(the real path of folder's launcher, None) when folder proves to be a checkout; else (None, why not, or None
    when there is no launcher there at all)."""
    candidate = os.path.normpath(os.path.join(folder, "agent-tools"))
    if not os.path.lexists(candidate):
        return None, None
    real = os.path.realpath(candidate)
    checkout = os.path.dirname(real)
    why = _refusal(real, checkout)
    if why is not None:
        return None, "%s is not run: %s" % (candidate, why)
    return real, None


def _refusal(launcher, checkout):
    """Why launcher (a real path) cannot be trusted as its checkout's, or None."""
    try:
        st = os.lstat(launcher)
    except OSError as e:
        return "cannot read it (%s)" % e.strerror
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if not os.path.isfile(os.path.join(checkout, "pom.xml")):
        return "no pom.xml beside it, so %s is not an agent-tools checkout" % checkout
    why = _foreign(launcher, st, sticky_allowed=False)
    if why is not None:
        return why
    folder, depth = checkout, 0
    while True:
        try:
            st = os.lstat(folder)
        except OSError as e:
            return "cannot read the folder %s (%s)" % (folder, e.strerror)
        # neither the checkout's folder nor the folder it is in may be a sticky shared one (anyone may add files
        # there, or make the checkout's name first); above them a sticky folder keeps what is the user's the user's
        why = _foreign(folder, st, sticky_allowed=depth >= 2)
        if why is not None:
            return why + (" (a shared folder is no place for a checkout)" if depth == 1 and st.st_mode & stat.S_ISVTX else "")
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder, depth = parent, depth + 1


def _foreign(path, st, sticky_allowed):
    """Why another user could write or replace path (stat st), or None: owned by the user or root, writable by
    neither others nor a group other than the user's private one (unless sticky_allowed and the folder is sticky)."""
    me = os.geteuid()
    if st.st_uid not in (me, 0):
        return "%s belongs to %s, neither to you nor to root" % (path, _user_name(st.st_uid))
    mode = st.st_mode
    group_writes = mode & stat.S_IWGRP and not _private_group(st.st_gid)
    if mode & stat.S_IWOTH or group_writes:
        if sticky_allowed and mode & stat.S_ISVTX:
            return None
        return "%s has mode %s: others may write %s" % (path, stat.filemode(mode), "there" if stat.S_ISDIR(mode) else "it")
    return None


def _private_group(gid):
    """The user's private group: their primary group, named as they are (as agent-tools' PrivateFolder accepts)."""
    if gid != os.getegid():
        return False
    try:
        import grp
        import pwd
        return grp.getgrgid(gid).gr_name == pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return False


def _user_name(uid):
    try:
        import pwd
        return "%s (uid %d)" % (pwd.getpwuid(uid).pw_name, uid)
    except (ImportError, KeyError):
        return "uid %d" % uid
