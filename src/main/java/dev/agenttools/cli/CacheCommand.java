package dev.agenttools.cli;

import dev.agenttools.Settings;
import dev.agenttools.mailindex.CacheSettings;
import dev.agenttools.mailindex.MailIndexFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/** {@code agent-tools cache status|clear}: the local mail index list_emails and search_emails keep. */
@Command(name = "cache", mixinStandardHelpOptions = true,
        description = {"The local mail index: status (where it is, messages kept per account) or clear (forget it all).",
                "Turn it off with AGENT_TOOLS_CACHE=off, or per call with \"cache\": \"off\"."})
final class CacheCommand implements Callable<Integer> {
    /** What to do, named as users type it. */
    enum Action { status, clear }

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", description = "${COMPLETION-CANDIDATES}")
    Action action;

    @Override
    public Integer call() {
        CacheSettings settings;
        try {
            settings = Settings.load().mailIndex();
        } catch (IllegalArgumentException e) {
            throw new ConfigurationException("configuration: " + e.getMessage(), e);
        }
        var out = spec.commandLine().getOut();
        if (action == Action.clear) {
            out.println(MailIndexFiles.clear(settings) ? "cleared " + settings.file() : "no mail index at " + settings.file());
            return 0;
        }
        out.println("mail index: " + settings.file() + " (" + settings.mode() + ", at most " + settings.maxMessages()
                + " messages per account)");
        Optional<Map<String, Long>> counts = MailIndexFiles.status(settings);
        if (counts.isEmpty()) {
            out.println("  nothing kept yet");
        } else if (counts.get().isEmpty()) {
            out.println("  no account");
        } else {
            counts.get().forEach((account, n) -> out.println("  " + account + ": " + n + " messages"));
        }
        return 0;
    }
}
