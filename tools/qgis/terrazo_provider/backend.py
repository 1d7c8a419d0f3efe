"""How the algorithms reach terrazo (docs/qgis.md "Which terrazo runs"): one function, run(), that
runs a terrazo command either through the terrazo Python package (when it is importable) or through
the terrazo program (when it is not), feeding QGIS's progress bar and honouring its cancel button.

There is no second implementation: both ways run terrazo's own option parser and run function, the
package in this process (terrazo.run, docs/python.md) and the program in a child process, with the
same command-line flags, so the outputs are the program's bit for bit.

Choice (first that applies):
  1. the backend named by the environment variable TERRAZO_BACKEND (python or cli), else the one
     set in Processing > Options > Providers > terrazo (auto, python, cli); auto below;
  2. python: `import terrazo`, after putting TERRAZO_PYTHONPATH (environment, else the provider
     setting "terrazo Python package folder", e.g. the build tree's build/python) first on sys.path;
  3. cli: the program TERRAZO_EXECUTABLE (environment, else the provider setting), else `terrazo`
     on PATH.
"""

import json
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading

from qgis.core import QgsProcessingException

SETTING_BACKEND = "TERRAZO_BACKEND"
SETTING_PYTHONPATH = "TERRAZO_PYTHONPATH"
SETTING_EXECUTABLE = "TERRAZO_EXECUTABLE"
BACKENDS = ["auto", "python", "cli"]


class Canceled(Exception):
    """Raised from the progress callback when the user presses Cancel: terrazo stops cleanly and
    publishes no output (its outputs are written to a temporary name and renamed at the end)."""


def _setting(name):
    """The environment variable `name`, else the provider setting of that name, else ''."""
    value = os.environ.get(name, "")
    if value:
        return value
    try:
        from processing.core.ProcessingConfig import ProcessingConfig
        value = ProcessingConfig.getSetting(name, readable=True)  # a selection by its text, not its index
    except Exception:  # Processing plugin absent (a bare PyQGIS script): environment only
        value = None
    return str(value) if value else ""


def _import_package():
    """The terrazo Python package, or None with the reason it could not be imported."""
    folder = _setting(SETTING_PYTHONPATH)
    if folder and folder not in sys.path:
        sys.path.insert(0, folder)
    try:
        import terrazo
    except ImportError as error:
        return None, "the terrazo Python package is not importable (%s)" % error
    if not hasattr(terrazo, "run"):
        return None, "the module terrazo found at %s is not terrazo's Python package" % getattr(terrazo, "__file__", "?")
    return terrazo, ""


def shared_flag(name):
    """The shared flag `name` ("--memory", "--device", ...) as the engine's flag table declares it
    (terrazo._native.shared_flag: name, type, choices, default, help), or None when the terrazo package
    is not importable (the program alone: the provider's parameters keep their own wording then)."""
    module, _ = _import_package()
    native = getattr(module, "_native", None)
    if native is None or not hasattr(native, "shared_flag"):
        return None
    return native.shared_flag(name)


def command_flag(command, name):
    """The flag `name` ("--weight") of `command` as the engine's flag table declares it
    (terrazo._native.flags: name, type, choices, default, help), or None when the terrazo package is not
    importable or the command has no such flag."""
    module, _ = _import_package()
    native = getattr(module, "_native", None)
    if native is None or not hasattr(native, "flags"):
        return None
    return next((flag for flag in native.flags(command) if flag["name"] == name), None)


def _find_executable():
    configured = _setting(SETTING_EXECUTABLE)
    if configured:
        if os.path.isfile(configured) and os.access(configured, os.X_OK):
            return configured, ""
        return None, "TERRAZO_EXECUTABLE '%s' is not an executable file" % configured
    found = shutil.which("terrazo")
    if found:
        return found, ""
    return None, "no terrazo program on PATH"


def choose_backend():
    """('python', module) or ('cli', path to the program); raises QgsProcessingException saying how
    to install terrazo when neither is there."""
    wanted = (_setting(SETTING_BACKEND) or "auto").lower()
    if wanted not in BACKENDS:
        raise QgsProcessingException("TERRAZO_BACKEND is '%s': expected auto, python or cli" % wanted)
    reasons = []
    if wanted in ("auto", "python"):
        module, reason = _import_package()
        if module is not None:
            return "python", module
        reasons.append(reason)
    if wanted in ("auto", "cli"):
        program, reason = _find_executable()
        if program is not None:
            return "cli", program
        reasons.append(reason)
    raise QgsProcessingException(
        "terrazo not found: %s. Build terrazo (README) and put build/python on PYTHONPATH or set the terrazo "
        "Python package folder, or put the terrazo program on PATH or set its path, in Processing > Options > "
        "Providers > terrazo (docs/qgis.md)" % "; ".join(reasons))


def _text(value):
    """A flag value as the command line types it; a float by repr, which reads back as the same double."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (tuple, list)):
        return ",".join(_text(v) for v in value)
    return str(value)


def command_line(command, positionals, flags):
    """The terrazo argument list of `command`: flags is a list of (name, value) pairs, value True for
    a bare flag; names are the program's (without the dashes). Used for the program and, turned into
    keywords, for the package (terrazo.run spells them back into the same flags)."""
    args = [command]
    for name, value in flags:
        args.append("--" + name if value is True else "--%s=%s" % (name, _text(value)))
    args.append("--json")
    files = [str(p) for p in positionals]
    if any(f.startswith("-") and f != "-" for f in files):
        args.append("--")
    return args + files


class _ProgressBridge:
    """terrazo's progress (phase, fraction in [0, 1]) to QGIS's feedback: the phase as progress text
    when it changes, the fraction as the percentage; Cancel raises Canceled."""

    def __init__(self, feedback):
        self.feedback = feedback
        self.phase = None

    def __call__(self, phase, fraction):
        if self.feedback is None:
            return
        if self.feedback.isCanceled():
            raise Canceled()
        if phase != self.phase:
            self.phase = phase
            self.feedback.setProgressText("terrazo: %s" % phase)
        self.feedback.setProgress(max(0.0, min(100.0, 100.0 * float(fraction))))


def _run_package(module, command, positionals, flags, feedback):
    # terrazo.run(command, *files, progress=, **keywords): a keyword spells --name=value (underscores
    # become dashes); repeated flags (--source, --dest, --co) go as a list under their own name.
    keywords = {}
    for name, value in flags:
        key = name.replace("-", "_")
        if name in ("source", "dest", "site", "co", "paths"):
            keywords.setdefault(key, []).append(value)
        else:
            keywords[key] = value
    bridge = _ProgressBridge(feedback)
    try:
        return module.run(command, *positionals, progress=bridge, **keywords)
    except Canceled:
        raise QgsProcessingException("terrazo %s canceled: no output was written" % command)
    except (ValueError, OSError, MemoryError, RuntimeError, TypeError) as error:
        raise QgsProcessingException("terrazo %s: %s" % (command, error))


# A progress line of the program on a non-terminal stderr (tools/cli/cli_progress.cpp):
# "phase: 45.2%, 12.3 Mcells/s, ETA 0:42 (452/1000)".
_PROGRESS_LINE = re.compile(r"^(?P<phase>[^:]+): (?P<percent>[0-9.]+)%")


def _run_program(program, command, positionals, flags, feedback):
    args = [program] + command_line(command, positionals, flags)
    if feedback is not None:
        feedback.pushCommandInfo(" ".join(args))
    bridge = _ProgressBridge(feedback)
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    # Two threads drain the pipes; only this thread (the algorithm's) touches feedback, whose
    # signals would otherwise cross threads.
    lines = queue.Queue()
    stdout_chunks = []
    readers = [threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in process.stderr], daemon=True),
               threading.Thread(target=lambda: stdout_chunks.append(process.stdout.read()), daemon=True)]
    for reader in readers:
        reader.start()
    stderr_lines = []

    def show_lines():
        while True:
            try:
                line = lines.get_nowait()
            except queue.Empty:
                return
            stderr_lines.append(line)
            match = _PROGRESS_LINE.match(line)
            if feedback is None:
                continue
            if match:
                if match.group("phase") != bridge.phase:
                    bridge.phase = match.group("phase")
                    feedback.setProgressText("terrazo: %s" % bridge.phase)
                feedback.setProgress(min(100.0, float(match.group("percent"))))
            elif line:
                feedback.pushConsoleInfo(line)

    canceled = False
    while True:
        try:
            process.wait(timeout=0.1)
            break
        except subprocess.TimeoutExpired:
            show_lines()
            if feedback is not None and feedback.isCanceled() and not canceled:
                # SIGINT: the program's progress callback returns false, the run unwinds and
                # publishes no output (the same as Ctrl-C in a terminal).
                process.send_signal(signal.SIGINT)
                canceled = True
    for reader in readers:
        reader.join()
    show_lines()
    if canceled or (feedback is not None and feedback.isCanceled() and process.returncode != 0):
        raise QgsProcessingException("terrazo %s canceled: no output was written" % command)
    if process.returncode != 0:
        message = next((line for line in reversed(stderr_lines) if line.strip()), "exit status %d" % process.returncode)
        raise QgsProcessingException(message)
    stdout = "".join(stdout_chunks).strip().splitlines()
    if not stdout:
        raise QgsProcessingException("terrazo %s printed no JSON summary" % command)
    return json.loads(stdout[-1])


def run(command, positionals, flags, feedback):
    """Runs terrazo `command` on the files `positionals` with `flags` [(name, value), ...]; returns the
    --json summary as a dict. Raises QgsProcessingException with terrazo's one-line message on an
    error, and on Cancel (no output is written then)."""
    if feedback is not None and feedback.isCanceled():
        raise QgsProcessingException("terrazo %s canceled before it started" % command)
    kind, where = choose_backend()
    if feedback is not None:
        feedback.pushInfo("terrazo %s via %s" % (command, "the Python package at " + os.path.dirname(where.__file__)
                                                  if kind == "python" else "the program " + where))
    if kind == "python":
        summary = _run_package(where, command, positionals, flags, feedback)
    else:
        summary = _run_program(where, command, positionals, flags, feedback)
    if feedback is not None:
        feedback.setProgress(100.0)
    return summary
