/**
 * The benchmark, internal: the article's experiment and more (scenarios, runner, statistics, report) against an
 * emulator, an external emulator process or Google. Calls the tools through the front door.
 */
package dev.agenttools.bench;
