"""The registry's commands as client methods, one table for the sync and the asyncio client.

A test (tests/test_tools_table.py) holds this table to the server's `tools.list`: every command has a helper, and
each helper's positional params are the command's required params, so a tool added to the registry fails the test
until it has its helper here.
"""

import inspect

# (command, helper name, required params in the order the helper takes them)
TOOLS = (
    ("tools.list", "tools", ()),
    ("gmail.list-emails", "list_emails", ()),
    ("gmail.search-emails", "search_emails", ("query",)),
    ("gmail.get-email", "get_email", ("message_id",)),
    ("calendar.list-calendars", "list_calendars", ()),
    ("calendar.list-events", "list_events", ()),
    ("calendar.get-event", "get_event", ("event_id",)),
    ("calendar.free-busy", "free_busy", ()),
    # Habit tools: a habit is named by its id or its name, any case ("reading" finds "Reading").
    ("habit.create", "create_habit", ("name",)),
    ("habit.update", "update_habit", ("habit",)),
    ("habit.archive", "archive_habit", ("habit",)),
    ("habit.restore", "restore_habit", ("habit",)),
    ("habit.log", "log_habit", ("habit",)),
    ("habit.list", "list_habits", ()),
    ("habit.history", "habit_history", ("habit",)),
)


def wire_params(params):
    """The params as sent: a trailing underscore is dropped, so that Python keywords can be passed
    (habit_history("reading", from_="2026-05-01") sends "from")."""
    out = {}
    for key, value in (params or {}).items():
        out[key[:-1] if key.endswith("_") and len(key) > 1 else key] = value
    return out


def _signature(required):
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    parameters += [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in required]
    parameters.append(inspect.Parameter("timeout", inspect.Parameter.KEYWORD_ONLY, default=None))
    parameters.append(inspect.Parameter("params", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(parameters)


def _helper(command, name, required, asynchronous):
    signature = _signature(required)

    def bind(self, args, kwargs):
        bound = signature.bind(self, *args, **kwargs)
        arguments = bound.arguments
        params = dict(arguments.get("params", {}))
        for key in required:
            params[key] = arguments[key]
        return params, arguments.get("timeout")

    if asynchronous:
        async def method(self, *args, **kwargs):
            params, timeout = bind(self, args, kwargs)
            return await self.call(command, params, timeout)
    else:
        def method(self, *args, **kwargs):
            params, timeout = bind(self, args, kwargs)
            return self.call(command, params, timeout)
    method.__name__ = method.__qualname__ = name
    method.__signature__ = signature
    method.__doc__ = "Runs %s: %s the answer {data, backend, duration_ms}, or None (the reason in last_error)." % (
        command, "awaits" if asynchronous else "returns")
    return method


def add_helpers(cls, asynchronous):
    """Adds a method per command of TOOLS to a client class that has call(command, params, timeout)."""
    for command, name, required in TOOLS:
        setattr(cls, name, _helper(command, name, required, asynchronous))
    return cls
