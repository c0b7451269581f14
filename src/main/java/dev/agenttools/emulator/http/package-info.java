/**
 * The emulator's HTTP front: the Jetty handler that turns each request, or each part of a batch, into API calls and
 * holds every answer for the modelled latency ({@code HttpFront}, {@code BatchCodec}, {@code RequestBody}); the gate
 * each call passes before an API answers it, in Google's order: token, route, concurrency, quota, faults
 * ({@code CallGate}); the users, each with its own mailbox, calendars, quota, concurrency limit and counters, and the
 * tokens that name them ({@code Users}); the latency and concurrency models; and Jetty's own errors in Google's JSON. It routes calls to
 * {@code gmail}, {@code calendar} and {@code oauth}, so it sits above them. Internal to the emulator, not API: its
 * types are public only for {@code Emulator}, which wires them.
 */
package dev.agenttools.emulator.http;
