/**
 * The front door of agent-tools, part of the published API: {@link dev.agenttools.Tools} builds the one
 * {@link dev.agenttools.tool.ToolRegistry} every mode calls, from {@link dev.agenttools.Settings} (the configuration
 * file and the environment, read once) or from the settings records of each family. The published API is this
 * package, the tool protocol ({@code dev.agenttools.tool}), the settings records the builder takes
 * ({@code GoogleSettings}, {@code GmailSettings}, {@code CalendarSettings}, {@code CacheSettings}, {@code AuthSettings},
 * {@code TrackingSettings}) and the {@code CallRecorder} it records calls with; {@code ArchitectureTest} keeps the
 * list. Every other package is internal: its public types exist for our other packages, and may change.
 */
package dev.agenttools;
