package io.loopdiag.cli.support;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import org.xml.sax.SAXException;

/**
 * What the tools that read {@code loopdiag check}'s files accept, by their own schemas (kept in
 * {@code src/test/resources/third-party}): SARIF 2.1.0's JSON Schema, and the JUnit XML schema of
 * Jenkins' xunit plugin.
 */
public final class Formats {
    private static final String SARIF_ID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
    private static final String SARIF_SCHEMA = resource("third-party/sarif-schema-2.1.0.json");
    private static final SchemaRegistry SARIF = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4,
            builder -> builder.schemas(id -> SARIF_ID.equals(id) ? SARIF_SCHEMA : null)
                    .schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));

    private Formats() {
    }

    /** {@code file}'s errors against SARIF 2.1.0's schema, one line each. */
    public static List<String> sarifErrors(Path file) throws IOException {
        List<Error> errors = SARIF.getSchema(SchemaLocation.of(SARIF_ID)).validate(Files.readString(file), InputFormat.JSON);
        return errors.stream().map(Error::toString).toList();
    }

    public static void assertValidSarif(Path file) throws IOException {
        assertEquals(List.of(), sarifErrors(file), file + " against SARIF 2.1.0's schema");
    }

    /** Fails naming the first error of {@code file} against the JUnit XML schema of Jenkins' xunit plugin. */
    public static void assertValidJenkinsJunitXml(Path file) throws IOException {
        try {
            SchemaFactory factory = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
            Validator validator = factory.newSchema(new StreamSource(new java.io.StringReader(resource("third-party/jenkins-xunit-junit-10.xsd"))))
                    .newValidator();
            validator.validate(new StreamSource(file.toFile()));
        } catch (SAXException e) {
            throw new AssertionError(file + " against Jenkins xunit's junit-10.xsd: " + e.getMessage() + "\n" + Files.readString(file), e);
        }
    }

    private static String resource(String name) {
        try (InputStream in = Formats.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("no test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
