/**
 * What one emulated API call is made of, shared by every emulated API and by the front: the request as the resources
 * see it ({@code ApiRequest}), the answer ({@code ApiResponse}), Google's errors and their JSON bodies
 * ({@code ApiError}, {@code ErrorBody}), JSON, paging parameters and field masks, an API's methods with their quota
 * costs ({@code RouteTable}, {@code Route}, {@code QuotaBucket}), the seeded fault model and the live counters. It
 * imports nothing else of the emulator. Internal to the emulator, not API: its types are public only for the sibling
 * packages; nothing outside {@code dev.agenttools.emulator} may use them.
 */
package dev.agenttools.emulator.api;
