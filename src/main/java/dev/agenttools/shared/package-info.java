/**
 * State that several instances of agent-tools serving the same users share (for {@code agent-tools server} behind a
 * load balancer): which instances serve each account now, so that each paces that account's Google calls at its share,
 * on DynamoDB. Internal: not part of the published API.
 */
package dev.agenttools.shared;
