package dev.agenttools.cli;

/**
 * A flag value or setting (environment, config file) that is wrong, found before any work starts: exit status 2.
 * The message names the flag or variable, its bad value and what is allowed; it is printed as is.
 */
final class ConfigurationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ConfigurationException(String message) {
        super(message);
    }

    ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
