package dev.agenttools.emulator;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;

/**
 * A fresh self-signed certificate for localhost and 127.0.0.1, made with Bouncy Castle (the JDK has no public
 * API for it). Written as PEM so that any client can be told to trust it (NODE_EXTRA_CA_CERTS, a Java
 * trust store, Python's cafile...).
 */
record SelfSignedCertificate(KeyStore keyStore, X509Certificate certificate) {
    static final String PASSWORD = "emulator";

    static SelfSignedCertificate create(String host) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(256);
            KeyPair pair = generator.generateKeyPair();
            X500Name name = new X500Name("CN=agent-tools Gmail emulator");
            Instant now = Instant.now();
            JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name,
                    BigInteger.valueOf(now.toEpochMilli()), Date.from(now.minus(Duration.ofDays(1))),
                    Date.from(now.plus(Duration.ofDays(365))), name, pair.getPublic());
            GeneralName[] names = host.matches("[0-9.]+|.*:.*")
                    ? new GeneralName[] {new GeneralName(GeneralName.iPAddress, host),
                            new GeneralName(GeneralName.dNSName, "localhost")}
                    : new GeneralName[] {new GeneralName(GeneralName.dNSName, host),
                            new GeneralName(GeneralName.dNSName, "localhost"),
                            new GeneralName(GeneralName.iPAddress, "127.0.0.1")};
            builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            X509Certificate cert = new JcaX509CertificateConverter().getCertificate(
                    builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("emulator", pair.getPrivate(), PASSWORD.toCharArray(), new Certificate[] {cert});
            return new SelfSignedCertificate(store, cert);
        } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make a self-signed certificate: " + e.getMessage(), e);
        }
    }

    /** Writes the certificate as PEM to {@code file} (a temp file when null) and returns the path. */
    Path writePem(Path file) {
        try {
            Path target = file != null ? file : Files.createTempFile("agent-tools-emulator-", ".pem");
            String pem = "-----BEGIN CERTIFICATE-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(certificate.getEncoded())
                    + "\n-----END CERTIFICATE-----\n";
            Files.writeString(target, pem, StandardCharsets.US_ASCII);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the certificate to " + file + ": " + e.getMessage(), e);
        } catch (CertificateEncodingException e) {
            throw new IllegalStateException(e);
        }
    }
}
