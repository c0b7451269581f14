package dev.agenttools.cli;

import com.google.api.client.extensions.java6.auth.oauth2.AuthorizationCodeInstalledApp;
import com.google.api.client.http.javanet.NetHttpTransport;
import dev.agenttools.Settings;
import dev.agenttools.Tools;
import dev.agenttools.auth.AuthSettings;
import dev.agenttools.auth.SignIn;
import dev.agenttools.tool.ToolException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code agent-tools auth login|status|logout}: sign in to Gmail once; the tools then use the stored sign-in. */
@Command(name = "auth", mixinStandardHelpOptions = true, description = "Sign in to Google once, see the sign-in, or sign out.",
        subcommands = {AuthCommand.Login.class, AuthCommand.Status.class, AuthCommand.Logout.class})
final class AuthCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        throw new CommandLine.ParameterException(spec.commandLine(), "auth needs a subcommand: login, status or logout");
    }

    static AuthSettings settings() {
        return Settings.load().auth();
    }

    @Command(name = "login", mixinStandardHelpOptions = true,
            description = {"Sign in: open Google's consent page and store the refresh token it grants.",
                    "Opens the page (or prints its address), catches the answer on a loopback address and stores the refresh "
                            + "token in the config folder, readable by you only. The address carries PKCE (S256) and a random "
                            + "state; an answer without that state is refused."})
    static final class Login implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Option(names = "--client-secrets", description = "The OAuth client JSON (Desktop app) from Google Cloud Console.")
        Path clientSecrets;
        @Option(names = "--scopes", split = ",", description = "Scopes (default: gmail.readonly,calendar.readonly).")
        List<String> scopes;
        @Option(names = "--no-browser", description = "Only print the consent address; do not try to open a browser.")
        boolean noBrowser;

        @Override
        public Integer call() {
            PrintWriter err = spec.commandLine().getErr();
            AuthSettings s = settings();
            if (clientSecrets != null) {
                s = s.withClientSecrets(clientSecrets);
            }
            if (scopes != null) {
                s = s.withScopes(AuthSettings.expand(String.join(",", scopes)));
            }
            AuthorizationCodeInstalledApp.Browser browser = url -> {
                err.println("Open this address to let agent-tools read your mail (waiting for the answer):");
                err.println("  " + url);
                err.flush();
                if (!noBrowser) {
                    AuthorizationCodeInstalledApp.browse(url); // the desktop's browser, where there is one
                }
            };
            SignIn.Status status;
            try {
                status = SignIn.login(s, new NetHttpTransport(), browser); // an AuthException is unauthenticated: 4
            } catch (IOException e) {
                throw new ToolException(ToolException.Kind.UPSTREAM,
                        e.getMessage() + " (is the token endpoint " + s.tokenUrl() + " reachable?)", e);
            }
            spec.commandLine().getOut().println("signed in as " + who() + "; scopes " + String.join(" ", status.scopes())
                    + "; stored in " + status.store());
            return 0;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true, description = "Who is signed in, with which scopes, until when (never the token).")
    static final class Status implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            SignIn.Status status = SignIn.status(settings());
            PrintWriter out = spec.commandLine().getOut();
            if (!status.signedIn()) {
                out.println("not signed in: run 'agent-tools auth login --client-secrets FILE'");
                return ToolException.Kind.UNAUTHENTICATED.exitStatus(); // the answer, not a failure: on stdout
            }
            out.println("signed in as " + who() + " with OAuth client " + status.clientId());
            out.println("scopes: " + String.join(" ", status.scopes()));
            out.println("access token: " + (status.accessTokenExpiresAt() == null ? "none yet"
                    : "expires " + status.accessTokenExpiresAt()) + "; refresh token: " + (status.hasRefreshToken() ? "stored" : "missing"));
            out.println("since " + status.signedInAt() + "; stored in " + status.store());
            return 0;
        }
    }

    /** The account's address, asked of Gmail with the stored sign-in (a refresh if the access token is due). */
    static String who() {
        Settings settings = Settings.load();
        try {
            // the stored sign-in's account, whatever token the settings name
            return Tools.accountAddress(settings.withGoogle(settings.google().withoutAccessToken()), Duration.ofSeconds(15));
        } catch (ToolException e) {
            return "(unknown: " + e.getMessage() + ")";
        }
    }

    @Command(name = "logout", mixinStandardHelpOptions = true, description = "Revoke the sign-in at Google and delete it here.")
    static final class Logout implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            AuthSettings s = settings();
            boolean was = SignIn.status(s).signedIn();
            boolean revoked = SignIn.logout(s, new NetHttpTransport());
            spec.commandLine().getOut().println(!was ? "not signed in; nothing to do"
                    : revoked ? "signed out: the token is revoked at Google and deleted here"
                    : "signed out here; Google did not confirm the revocation (offline?): remove the app at myaccount.google.com/permissions");
            return 0;
        }
    }
}
