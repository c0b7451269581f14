/**
 * A local server of the Gmail v1 and Calendar v3 APIs (and Google's OAuth endpoints) for tests and the benchmark.
 * Its edge is this package's three public types, {@link dev.agenttools.emulator.Emulator},
 * {@link dev.agenttools.emulator.EmulatorConfig} and {@link dev.agenttools.emulator.EmulatorCounters}: other packages
 * use nothing else. {@code Emulator} wires the internal subpackages, whose imports point one way: {@code api} (what one
 * call is made of) is below {@code gmail}, {@code calendar} and {@code oauth}, which are below {@code http} (the front
 * that routes calls to them), which is below this package. The emulator imports nothing else of ours, so it cannot
 * share a mistake with the clients it tests ({@code ArchitectureTest} keeps both rules).
 */
package dev.agenttools.emulator;
