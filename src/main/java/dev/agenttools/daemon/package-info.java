/**
 * The resident server the launcher forwards one-shot calls to, internal: its folder and lock, the launcher's request
 * wire and the socket server. Imports nothing else of ours: the command line gives it the tools.
 */
package dev.agenttools.daemon;
