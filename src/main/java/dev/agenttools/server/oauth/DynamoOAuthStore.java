package dev.agenttools.server.oauth;

import dev.agenttools.store.DynamoClients;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.DescribeTableRequest;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.KeyType;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.ReturnValue;
import software.amazon.awssdk.services.dynamodb.model.ScalarAttributeType;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@link OAuthStore} in one DynamoDB table that instances on several machines share (docs/mcp-authorization.md,
 * "The DynamoDB table"). One item per thing, under a partition key {@code pk} that says what it is: {@code client#},
 * {@code pending#}, {@code consent#}, {@code code#}, {@code at#}, {@code rt#} (by digest), {@code grant#} (by grant id),
 * {@code account#} (by address) and {@code approval#} (by client id and address). DynamoDB has no transaction here
 * that a local DynamoDB (dynalite, in the tests) also has, and no strongly consistent query by grant or account; so ending is not deleting: a grant item says whether
 * the grant was ended, an account item counts how many times the account was ended (its generation), and a token is
 * good only while its grant is not ended and has its account's generation. Ending a grant or an account is then one
 * write, seen by every check at once, and no token written meanwhile escapes it. One-time values are spent by one
 * conditional write (a delete returning the old item, an update conditioned on {@code spent = false}), so exactly
 * one of two instances spending one at once gets it. Every item has {@code expires_at} (epoch seconds) for DynamoDB's
 * TTL, which deletes lazily (up to days late): what has expired is refused on reading, by {@code expires_ms}.
 *
 * <p>An access token checked good is kept in memory for {@link #CHECK_CACHE_LIFETIME} ({@link CheckedTokens}), so that
 * a client's next calls cost no round trip. Thread-safe (the SDK client is).
 */
final class DynamoOAuthStore implements OAuthStore {
    /** How long a checked access token is taken as good without asking DynamoDB again: another instance's revocation is seen within it. */
    static final Duration CHECK_CACHE_LIFETIME = Duration.ofSeconds(5);
    /** Checked access tokens kept in memory at most (about 300 bytes each). */
    static final int CHECK_CACHE_ENTRIES = 10_000;
    /** A grant item outlives its newest refresh token by this, so that a late reuse still finds it ended. */
    private static final Duration GRANT_MARGIN = Duration.ofDays(1);
    /**
     * A client item that has signed in lives this long after its newest sign-in's refresh token expires (DynamoDB's TTL
     * deletes it then): SQLite's purge of idle clients ({@link Limits#idleClientAge()}), done by TTL. One that never
     * signed in lives until the time {@link #putClient} was given, pushed on by the sign-ins it starts.
     */
    static final Duration CLIENT_IDLE_LIFETIME = Duration.ofHours(24);
    /** Unused clients are counted in one item per minute of registration ({@code clients#unused#<epoch minute>}). */
    private static final long MINUTE_SECONDS = 60;
    private static final String PK = "pk";
    private static final AttributeValue TRUE = AttributeValue.fromBool(true);
    private static final AttributeValue FALSE = AttributeValue.fromBool(false);

    private final DynamoDbClient client;
    private final String table;
    private final CheckedTokens checked;

    DynamoOAuthStore(DynamoDbClient client, String table, CheckedTokens checked) {
        this.client = client;
        this.table = table;
        this.checked = checked;
    }

    /** The store on the table the settings name: made when missing on a local DynamoDB, required in AWS. */
    static DynamoOAuthStore open(OAuthSettings.DynamoTable settings) throws Unavailable {
        DynamoDbClient client = DynamoClients.client(settings.endpoint(), settings.region());
        try {
            if (settings.endpoint() != null) {
                DynamoClients.ensureTable(client, CreateTableRequest.builder().tableName(settings.table())
                        .attributeDefinitions(AttributeDefinition.builder().attributeName(PK).attributeType(ScalarAttributeType.S).build())
                        .keySchema(KeySchemaElement.builder().attributeName(PK).keyType(KeyType.HASH).build())
                        .billingMode(BillingMode.PAY_PER_REQUEST).build());
            } else {
                client.describeTable(DescribeTableRequest.builder().tableName(settings.table()).build()); // fails now, not at a sign-in
            }
        } catch (SdkException e) {
            client.close();
            throw new Unavailable("the OAuth store's DynamoDB table " + settings.table() + " (" + settings.region()
                    + (settings.endpoint() == null ? "" : ", " + settings.endpoint()) + ") cannot be used: " + e.getMessage(), e);
        }
        return new DynamoOAuthStore(client, settings.table(), new CheckedTokens(CHECK_CACHE_ENTRIES, CHECK_CACHE_LIFETIME));
    }

    @Override
    public void putClient(Client c, Instant unusedUntil) throws Unavailable {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(PK, s("client#" + c.id()));
        strings(item, "name", c.name());
        item.put("redirect_uris", AttributeValue.fromL(c.redirectUris().stream().map(DynamoOAuthStore::s).toList()));
        item.put("created_at", n(c.createdAt().toEpochMilli()));
        item.put("expires_ms", n(unusedUntil.toEpochMilli()));
        item.put("expires_at", n(unusedUntil.getEpochSecond() + 1));
        run(() -> client.putItem(b -> b.tableName(table).item(item).conditionExpression("attribute_not_exists(pk)")));
        countUnused(c.createdAt(), 1);
    }

    /** Adds {@code by} to the counter of unused clients registered in the minute of {@code registeredAt}. */
    private void countUnused(Instant registeredAt, long by) throws Unavailable {
        long minute = registeredAt.getEpochSecond() / MINUTE_SECONDS;
        run(() -> client.updateItem(b -> b.tableName(table).key(key("clients#unused#" + minute))
                .updateExpression("ADD unused :by SET expires_at = :t")
                .expressionAttributeValues(Map.of(":by", n(by), ":t", n((minute + 1) * MINUTE_SECONDS
                        + Limits.MAX_UNUSED_CLIENT_LIFETIME.toSeconds() + MINUTE_SECONDS)))));
    }

    /**
     * The clients registered after {@code registeredAfter} that have not signed in: the counters of the minutes from
     * its minute to {@code now}'s, read at once (a Scan to count client items would read the whole table); a client's
     * first sign-in takes it off its minute's counter ({@link #markSignedIn}).
     */
    @Override
    public int unusedClients(Instant registeredAfter, Instant now) throws Unavailable {
        long last = now.getEpochSecond() / MINUTE_SECONDS;
        long first = Math.max(registeredAfter.getEpochSecond() / MINUTE_SECONDS, last - 99); // a BatchGetItem's 100
        List<Map<String, AttributeValue>> keys = new ArrayList<>();
        for (long m = first; m <= last; m++) {
            keys.add(key("clients#unused#" + m));
        }
        long count = 0;
        for (Map<String, AttributeValue> item : batchGet(keys).values()) {
            count += item.containsKey("unused") ? num(item, "unused") : 0;
        }
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, count));
    }

    /**
     * Nothing: a client item's TTL deletes it at its time when it never signed in, else a day after its newest refresh
     * token's expiry (and {@link #client} refuses an unused one past its time before TTL comes).
     */
    @Override
    public int purgeIdleClients(Instant now, Instant registeredBefore) {
        return 0;
    }

    /**
     * A client's first sign-in (tokens issued to it): marked once (a conditional write), and taken off the counter of
     * unused clients of its registration's minute.
     */
    private void markSignedIn(String clientId) throws Unavailable {
        Map<String, AttributeValue> old;
        try {
            old = run(() -> client.updateItem(b -> b.tableName(table).key(key("client#" + clientId))
                    .updateExpression("SET signed_in = :t").conditionExpression("attribute_exists(pk) AND attribute_not_exists(signed_in)")
                    .expressionAttributeValues(Map.of(":t", TRUE)).returnValues(ReturnValue.ALL_OLD))).attributes();
        } catch (Unavailable e) {
            if (!(e.getCause() instanceof ConditionalCheckFailedException)) {
                throw e;
            }
            return; // signed in before (or gone)
        }
        if (old != null && old.containsKey("created_at")) {
            countUnused(Instant.ofEpochMilli(num(old, "created_at")), -1);
        }
    }

    /**
     * Keeps the client's item at least until {@code until} plus a day when it has signed in, else until {@code until}
     * (a sign-in it started, a code issued to it): one conditional write, two when the first finds it unused; a later
     * time always wins.
     */
    private void keepClient(String clientId, Instant until) throws Unavailable {
        if (!extendClient(clientId, until.plus(CLIENT_IDLE_LIFETIME), "signed_in = :t")) {
            extendClient(clientId, until, "attribute_not_exists(signed_in)");
        }
    }

    /** Pushes the client's expiry on to {@code to} when {@code condition} holds and it expires sooner; whether it did. */
    private boolean extendClient(String clientId, Instant to, String condition) throws Unavailable {
        Map<String, AttributeValue> values = new HashMap<>(Map.of(":m", n(to.toEpochMilli()), ":s", n(to.getEpochSecond() + 1)));
        if (condition.contains(":t")) {
            values.put(":t", TRUE);
        }
        try {
            run(() -> client.updateItem(b -> b.tableName(table).key(key("client#" + clientId))
                    .updateExpression("SET expires_ms = :m, expires_at = :s")
                    .conditionExpression("attribute_exists(pk) AND " + condition
                            + " AND (attribute_not_exists(expires_ms) OR expires_ms < :m)")
                    .expressionAttributeValues(values)));
            return true;
        } catch (Unavailable e) {
            if (!(e.getCause() instanceof ConditionalCheckFailedException)) {
                throw e;
            }
            // kept longer already, of the other kind, or gone (its tokens then fail at the client check, as on SQLite)
            return false;
        }
    }

    @Override
    public Client client(String id, Instant now) throws Unavailable {
        Map<String, AttributeValue> item = get("client#" + id);
        if (item != null && !item.containsKey("signed_in") && item.containsKey("expires_ms") && expiry(item).compareTo(now) <= 0) {
            return null; // never signed in and past its time: TTL deletes it lazily
        }
        return item == null ? null : new Client(id, str(item, "name"),
                item.get("redirect_uris").l().stream().map(AttributeValue::s).toList(), Instant.ofEpochMilli(num(item, "created_at")));
    }

    @Override
    public void putPending(String stateDigest, Pending p) throws Unavailable {
        Map<String, AttributeValue> item = expiring("pending#" + stateDigest, p.expiresAt());
        strings(item, "client_id", p.clientId(), "redirect_uri", p.redirectUri(), "client_state", p.clientState(),
                "challenge", p.challenge(), "scope", p.scope(), "resource", p.resource(), "key_id", p.googleVerifier().keyId());
        item.put("google_verifier", AttributeValue.fromB(SdkBytes.fromByteArray(p.googleVerifier().bytes())));
        item.put("consented", AttributeValue.fromBool(p.consented()));
        put(item);
        keepClient(p.clientId(), p.expiresAt());
    }

    @Override
    public Pending takePending(String stateDigest, Instant now) throws Unavailable {
        Map<String, AttributeValue> r = take("pending#" + stateDigest, now);
        return r == null ? null : new Pending(str(r, "client_id"), str(r, "redirect_uri"), str(r, "client_state"),
                str(r, "challenge"), str(r, "scope"), str(r, "resource"),
                new TokenCipher.Sealed(str(r, "key_id"), r.get("google_verifier").b().asByteArray()), expiry(r),
                r.containsKey("consented") && r.get("consented").bool());
    }

    @Override
    public void putConsent(String digest, Consent k) throws Unavailable {
        Map<String, AttributeValue> item = expiring("consent#" + digest, k.expiresAt());
        strings(item, "client_id", k.clientId(), "redirect_uri", k.redirectUri(), "challenge", k.challenge(),
                "scope", k.scope(), "resource", k.resource(), "browser", k.browser(), "client_state", k.clientState(),
                "login_hint", k.loginHint(), "account", k.account());
        put(item);
        keepClient(k.clientId(), k.expiresAt());
    }

    @Override
    public Consent takeConsent(String digest, Instant now) throws Unavailable {
        Map<String, AttributeValue> r = take("consent#" + digest, now);
        return r == null ? null : new Consent(str(r, "client_id"), str(r, "redirect_uri"), str(r, "client_state"),
                str(r, "challenge"), str(r, "scope"), str(r, "resource"), str(r, "login_hint"), str(r, "browser"),
                str(r, "account"), expiry(r));
    }

    /** One item per pair, {@code approval#<client id>#<account>} (a client id has no {@code #}), put over the last. */
    @Override
    public void putApproval(String account, String clientId, Instant expiresAt) throws Unavailable {
        put(expiring("approval#" + clientId + "#" + account, expiresAt));
    }

    @Override
    public boolean approved(String account, String clientId, Instant now) throws Unavailable {
        Map<String, AttributeValue> item = get("approval#" + clientId + "#" + account);
        return item != null && expiry(item).isAfter(now);
    }

    @Override
    public void putCode(String digest, Code code) throws Unavailable {
        Map<String, AttributeValue> item = expiring("code#" + digest, code.expiresAt());
        strings(item, "client_id", code.clientId(), "redirect_uri", code.redirectUri(), "challenge", code.challenge(),
                "scope", code.scope(), "resource", code.resource(), "account", code.account());
        // a code issued before its account is ended must not outlive it (endAccount ends codes too)
        item.put("generation", n(generation(get("account#" + code.account()))));
        put(item);
        keepClient(code.clientId(), code.expiresAt());
    }

    /**
     * Redeems the code ({@link OAuthStore#redeemCode}): one conditional UpdateItem marks it spent with its grant, so
     * exactly one instance redeems it; the item then lives (TTL) until {@code rememberUntil}, for a reuse to find the
     * grant, which is ended even before its item exists (a reuse racing the first redemption's tokens).
     */
    @Override
    public Redeemed redeemCode(String digest, String grant, Instant now, Instant rememberUntil) throws Unavailable {
        Map<String, AttributeValue> r;
        try {
            r = run(() -> client.updateItem(b -> b.tableName(table).key(key("code#" + digest))
                    .updateExpression("SET spent = :t, grant_id = :g, remember_ms = :r, expires_at = :rs")
                    .conditionExpression("attribute_exists(pk) AND attribute_not_exists(spent) AND expires_ms > :now")
                    .expressionAttributeValues(Map.of(":t", TRUE, ":g", s(grant), ":r", n(rememberUntil.toEpochMilli()),
                            ":rs", n(rememberUntil.getEpochSecond() + 1), ":now", n(now.toEpochMilli())))
                    .returnValues(ReturnValue.ALL_NEW))).attributes();
        } catch (Unavailable e) {
            if (!(e.getCause() instanceof ConditionalCheckFailedException)) {
                throw e;
            }
            Map<String, AttributeValue> spent = get("code#" + digest);
            if (spent == null || !spent.containsKey("spent") || !spent.containsKey("remember_ms")
                    || num(spent, "remember_ms") <= now.toEpochMilli()) {
                return new Redeemed.None();
            }
            String first = str(spent, "grant_id");
            endGrantEvenUnborn(first, Instant.ofEpochMilli(num(spent, "remember_ms")));
            return new Redeemed.Reused(first);
        }
        if (num(r, "generation") != generation(get("account#" + str(r, "account")))) {
            return new Redeemed.None();
        }
        return new Redeemed.Fresh(new Code(str(r, "client_id"), str(r, "redirect_uri"), str(r, "challenge"), str(r, "scope"),
                str(r, "resource"), str(r, "account"), expiry(r)));
    }

    /**
     * Ends a grant whose item may not be written yet (its first tokens on their way): the item is made ended, so that
     * {@link #putTokens} finds it so and stores nothing that works; it expires (TTL) a day after {@code until} unless
     * the grant's own writes set a later expiry.
     */
    private void endGrantEvenUnborn(String grant, Instant until) throws Unavailable {
        checked.dropGrant(grant);
        run(() -> client.updateItem(b -> b.tableName(table).key(key("grant#" + grant))
                .updateExpression("SET ended = :t, expires_at = if_not_exists(expires_at, :x)")
                .expressionAttributeValues(Map.of(":t", TRUE, ":x", n(until.plus(GRANT_MARGIN).getEpochSecond() + 1)))));
        checked.dropGrant(grant);
    }

    @Override
    public void putTokens(String accessDigest, Grant access, String refreshDigest, Grant refresh) throws Unavailable {
        // the grant item first: a grant ended meanwhile takes no new tokens, and one ended after this write ends
        // the tokens written below as well (a token is good only while its grant item says so)
        long generation = generation(get("account#" + refresh.account()));
        try {
            run(() -> client.updateItem(b -> b.tableName(table).key(key("grant#" + refresh.grant()))
                    .updateExpression("SET account = :a, generation = if_not_exists(generation, :g), expires_at = :t")
                    .conditionExpression("attribute_not_exists(ended)")
                    .expressionAttributeValues(Map.of(":a", s(refresh.account()), ":g", n(generation),
                            ":t", n(refresh.expiresAt().plus(GRANT_MARGIN).getEpochSecond() + 1)))));
        } catch (Unavailable e) {
            if (e.getCause() instanceof ConditionalCheckFailedException) {
                return; // ended by a reuse of its refresh token: the client gets tokens that do not work, and signs in again
            }
            throw e;
        }
        put(token("at#" + accessDigest, access));
        Map<String, AttributeValue> rt = token("rt#" + refreshDigest, refresh);
        rt.put("spent", FALSE);
        put(rt);
        markSignedIn(refresh.clientId());
        keepClient(refresh.clientId(), refresh.expiresAt());
    }

    @Override
    public Grant accessToken(String digest, Instant now) throws Unavailable {
        Grant cached = checked.get(digest, now);
        if (cached != null) {
            return cached;
        }
        long mark = checked.mark();
        Map<String, AttributeValue> item = get("at#" + digest);
        if (item == null || expiry(item).compareTo(now) <= 0) {
            return null;
        }
        Grant grant = grant(item);
        if (!lasts(grant)) {
            return null;
        }
        checked.put(digest, grant, now, mark);
        return grant;
    }

    /**
     * Spends a refresh token ({@link OAuthStore#spendRefreshToken}): one conditional UpdateItem sets {@code spent} and
     * {@code spent_ms} (when) together, so exactly one instance spends it, and {@code spent_ms}, never changed after,
     * decides every reuse.
     */
    @Override
    public Spent spendRefreshToken(String digest, String clientId, Instant now, Duration grace) throws Unavailable {
        Map<String, AttributeValue> item;
        try {
            item = run(() -> client.updateItem(b -> b.tableName(table).key(key("rt#" + digest))
                    .updateExpression("SET spent = :t, spent_ms = :now").conditionExpression("attribute_exists(pk) AND spent = :f")
                    .expressionAttributeValues(Map.of(":t", TRUE, ":f", FALSE, ":now", n(now.toEpochMilli())))
                    .returnValues(ReturnValue.ALL_NEW))).attributes();
        } catch (Unavailable e) {
            if (!(e.getCause() instanceof ConditionalCheckFailedException)) {
                throw e;
            }
            // unknown, or spent before (by this client retrying, or by a thief): which?
            Map<String, AttributeValue> spent = get("rt#" + digest);
            if (spent == null) {
                return new Spent.None();
            }
            Grant grant = grant(spent);
            if (!lasts(grant)) {
                return new Spent.None();
            }
            // no spent_ms: spent before it was recorded, so no grace
            Instant spentAt = spent.containsKey("spent_ms") ? Instant.ofEpochMilli(num(spent, "spent_ms")) : null;
            if (OAuthStore.isRetry(grant, spentAt, clientId, now, grace)) {
                return new Spent.Again(grant);
            }
            endGrant(grant.grant());
            return new Spent.Reused(grant.grant());
        }
        Grant grant = grant(item);
        return grant.expiresAt().isAfter(now) && lasts(grant) ? new Spent.Fresh(grant) : new Spent.None();
    }

    @Override
    public void endGrant(String grant) throws Unavailable {
        checked.dropGrant(grant);
        try {
            run(() -> client.updateItem(b -> b.tableName(table).key(key("grant#" + grant)).updateExpression("SET ended = :t")
                    .conditionExpression("attribute_exists(pk)").expressionAttributeValues(Map.of(":t", TRUE))));
        } catch (Unavailable e) {
            if (!(e.getCause() instanceof ConditionalCheckFailedException)) {
                throw e;
            }
            // no such grant (gone by TTL): nothing of it is good anyway
        }
        checked.dropGrant(grant); // again: a check that read the grant before the write may have kept it meanwhile
    }

    @Override
    public void endAccessToken(String digest) throws Unavailable {
        checked.dropToken(digest);
        run(() -> client.deleteItem(b -> b.tableName(table).key(key("at#" + digest))));
    }

    @Override
    public Grant refreshToken(String digest) throws Unavailable {
        Map<String, AttributeValue> item = get("rt#" + digest);
        if (item == null) {
            return null;
        }
        Grant grant = grant(item);
        return lasts(grant) ? grant : null;
    }

    @Override
    public void endAccount(String account) throws Unavailable {
        checked.dropAccount(account);
        // one write: the Google token goes, and every grant, code and token of the account's older generation with it
        run(() -> client.updateItem(b -> b.tableName(table).key(key("account#" + account))
                .updateExpression("REMOVE key_id, refresh_token ADD generation :one")
                .expressionAttributeValues(Map.of(":one", n(1)))));
        checked.dropAccount(account);
    }

    @Override
    public void putGoogleRefreshToken(String account, TokenCipher.Sealed sealed, Instant now) throws Unavailable {
        run(() -> client.updateItem(b -> b.tableName(table).key(key("account#" + account))
                .updateExpression("SET key_id = :k, refresh_token = :r, updated_at = :u")
                .expressionAttributeValues(Map.of(":k", s(sealed.keyId()), ":r", AttributeValue.fromB(SdkBytes.fromByteArray(sealed.bytes())),
                        ":u", n(now.toEpochMilli())))));
    }

    @Override
    public TokenCipher.Sealed googleRefreshToken(String account) throws Unavailable {
        Map<String, AttributeValue> item = get("account#" + account);
        return item == null || !item.containsKey("refresh_token") ? null
                : new TokenCipher.Sealed(str(item, "key_id"), item.get("refresh_token").b().asByteArray());
    }

    /** Nothing: DynamoDB's TTL deletes expired items (lazily: they are refused on reading until then). */
    @Override
    public void purge(Instant now) {
    }

    @Override
    public void close() {
        client.close();
    }

    /** Whether the grant was not ended and is of its account's current generation (one read of both items). */
    private boolean lasts(Grant g) throws Unavailable {
        Map<String, AttributeValue> grantKey = key("grant#" + g.grant());
        Map<String, AttributeValue> accountKey = key("account#" + g.account());
        Map<String, Map<String, AttributeValue>> found = batchGet(List.of(grantKey, accountKey));
        Map<String, AttributeValue> grant = found.get(grantKey.get(PK).s());
        return grant != null && !grant.containsKey("ended")
                && num(grant, "generation") == generation(found.get(accountKey.get(PK).s()));
    }

    /** The items of these keys (at most 100) that exist, by {@code pk}: consistent reads, unprocessed keys asked again. */
    private Map<String, Map<String, AttributeValue>> batchGet(List<Map<String, AttributeValue>> all) throws Unavailable {
        Map<String, Map<String, AttributeValue>> found = new HashMap<>();
        List<Map<String, AttributeValue>> keys = new ArrayList<>(all);
        for (int attempt = 0; !keys.isEmpty(); attempt++) {
            if (attempt == 5) {
                throw new Unavailable("the OAuth store's DynamoDB table " + table + " kept items unread (throttled)", null);
            }
            if (attempt > 0) {
                pause(attempt);
            }
            List<Map<String, AttributeValue>> ask = keys;
            BatchGetItemResponse answer = run(() -> client.batchGetItem(b -> b.requestItems(Map.of(table,
                    KeysAndAttributes.builder().keys(ask).consistentRead(true).build()))));
            for (Map<String, AttributeValue> item : answer.responses().getOrDefault(table, List.of())) {
                found.put(item.get(PK).s(), item);
            }
            KeysAndAttributes left = answer.unprocessedKeys().get(table);
            keys = left == null ? List.of() : left.keys();
        }
        return found;
    }

    private static void pause(int attempt) throws Unavailable {
        try {
            Thread.sleep(20L << attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unavailable("interrupted while the OAuth store was throttled", e);
        }
    }

    private static long generation(Map<String, AttributeValue> account) {
        return account == null || !account.containsKey("generation") ? 0 : num(account, "generation");
    }

    /** Deletes the item and answers it, when it was there and has not expired: one caller of all gets it. */
    private Map<String, AttributeValue> take(String pk, Instant now) throws Unavailable {
        Map<String, AttributeValue> old = run(() -> client.deleteItem(b -> b.tableName(table).key(key(pk))
                .returnValues(ReturnValue.ALL_OLD))).attributes();
        return old == null || old.isEmpty() || expiry(old).compareTo(now) <= 0 ? null : old;
    }

    private Map<String, AttributeValue> get(String pk) throws Unavailable {
        Map<String, AttributeValue> item = run(() -> client.getItem(b -> b.tableName(table).key(key(pk)).consistentRead(true))).item();
        return item == null || item.isEmpty() ? null : item;
    }

    private void put(Map<String, AttributeValue> item) throws Unavailable {
        run(() -> client.putItem(b -> b.tableName(table).item(item)));
    }

    private static Map<String, AttributeValue> token(String pk, Grant g) {
        Map<String, AttributeValue> item = expiring(pk, g.expiresAt());
        strings(item, "account", g.account(), "client_id", g.clientId(), "scope", g.scope(), "resource", g.resource(),
                "grant_id", g.grant());
        return item;
    }

    private static Grant grant(Map<String, AttributeValue> r) {
        return new Grant(str(r, "account"), str(r, "client_id"), str(r, "scope"), str(r, "resource"), str(r, "grant_id"), expiry(r));
    }

    private static Map<String, AttributeValue> expiring(String pk, Instant expiresAt) {
        Map<String, AttributeValue> item = new HashMap<>();
        item.put(PK, s(pk));
        item.put("expires_ms", n(expiresAt.toEpochMilli()));
        item.put("expires_at", n(expiresAt.getEpochSecond() + 1)); // DynamoDB's TTL, in seconds: never before expires_ms
        return item;
    }

    private static Instant expiry(Map<String, AttributeValue> item) {
        return Instant.ofEpochMilli(num(item, "expires_ms"));
    }

    private static Map<String, AttributeValue> key(String pk) {
        return Map.of(PK, s(pk));
    }

    /** Puts each (name, value) pair as a string attribute; a null value is left out (DynamoDB has no null string). */
    private static void strings(Map<String, AttributeValue> item, String... namesAndValues) {
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] != null) {
                item.put(namesAndValues[i], s(namesAndValues[i + 1]));
            }
        }
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }

    private static AttributeValue n(long v) {
        return AttributeValue.fromN(Long.toString(v));
    }

    private static String str(Map<String, AttributeValue> item, String name) {
        AttributeValue v = item.get(name);
        return v == null ? null : v.s();
    }

    private static long num(Map<String, AttributeValue> item, String name) {
        return Long.parseLong(item.get(name).n());
    }

    /** A DynamoDB call whose failure is the store's {@link Unavailable} (the SDK's exception as its cause). */
    private interface Call<T> {
        T call();
    }

    private <T> T run(Call<T> call) throws Unavailable {
        try {
            return call.call();
        } catch (SdkException e) {
            throw new Unavailable(e instanceof ConditionalCheckFailedException ? "condition failed"
                    : "the OAuth store's DynamoDB table " + table + " failed: " + e.getMessage(), e);
        }
    }

    /** For tests: how many checked tokens are kept. */
    long checkedTokens() {
        return checked.size();
    }
}
