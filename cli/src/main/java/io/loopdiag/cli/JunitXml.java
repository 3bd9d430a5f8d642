package io.loopdiag.cli;

import io.loopdiag.protocol.Frame;
import io.loopdiag.protocol.Text;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * The findings as JUnit XML, which CI servers show as test results: one test case per finding,
 * named after its kind and message, in its application frame's class; the failure's text has its
 * stack, file and line. A finding that fails the check is a {@code failure}, one in the baseline
 * {@code skipped}, any other passes; no finding at all is one passing test case, as an empty suite
 * fails a Jenkins build. Only what Jenkins' xunit schema (junit-10.xsd) allows: no {@code file} or
 * {@code line} attribute. JunitXmlSchemaTest validates it against that schema.
 */
final class JunitXml {
    private JunitXml() {
    }

    static void write(Path path, List<Verdict.Judged> judged) throws IOException, XMLStreamException {
        createParent(path);
        long failures = judged.stream().filter(Verdict.Judged::fails).count();
        long skipped = judged.stream().filter(j -> j.failing() && j.inBaseline()).count();
        try (Writer writer = Files.newBufferedWriter(path, StandardCharsets.UTF_8)) {
            XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(writer);
            xml.writeStartDocument("UTF-8", "1.0");
            xml.writeCharacters("\n");
            xml.writeStartElement("testsuites");
            xml.writeAttribute("name", "loopdiag");
            xml.writeAttribute("tests", Integer.toString(Math.max(1, judged.size())));
            xml.writeAttribute("failures", Long.toString(failures));
            xml.writeCharacters("\n  ");
            xml.writeStartElement("testsuite");
            xml.writeAttribute("name", "loopdiag");
            xml.writeAttribute("tests", Integer.toString(Math.max(1, judged.size())));
            xml.writeAttribute("failures", Long.toString(failures));
            xml.writeAttribute("errors", "0");
            xml.writeAttribute("skipped", Long.toString(skipped));
            for (Verdict.Judged j : judged) {
                testCase(xml, j);
            }
            if (judged.isEmpty()) {
                xml.writeCharacters("\n    ");
                xml.writeEmptyElement("testcase");
                xml.writeAttribute("classname", "loopdiag");
                xml.writeAttribute("name", "no finding on any event loop");
            }
            xml.writeCharacters("\n  ");
            xml.writeEndElement();
            xml.writeCharacters("\n");
            xml.writeEndElement();
            xml.writeCharacters("\n");
            xml.writeEndDocument();
            xml.close();
        }
    }

    private static void testCase(XMLStreamWriter xml, Verdict.Judged j) throws XMLStreamException {
        Reports.Finding finding = j.finding();
        Frame frame = finding.frame();
        xml.writeCharacters("\n    ");
        xml.writeStartElement("testcase");
        xml.writeAttribute("classname", frame != null ? Text.printable(frame.className()) : "loopdiag");
        xml.writeAttribute("name", finding.kind() + ": " + Text.printable(finding.message()));
        if (j.fails()) {
            xml.writeCharacters("\n      ");
            xml.writeStartElement("failure");
            xml.writeAttribute("type", finding.kind());
            xml.writeAttribute("message", Text.printable(finding.message()));
            xml.writeCharacters(text(finding));
            xml.writeEndElement();
            xml.writeCharacters("\n    ");
        } else if (j.inBaseline()) {
            xml.writeCharacters("\n      ");
            xml.writeEmptyElement("skipped");
            xml.writeAttribute("message", "in the loopdiag baseline");
            xml.writeCharacters("\n    ");
        }
        xml.writeEndElement();
    }

    /** The finding as the agent's log shows it: the message, then its frames. */
    static String text(Reports.Finding finding) {
        StringBuilder text = new StringBuilder(Text.printable(finding.message())).append('\n');
        if (finding.count() > 1) {
            text.append("(seen ").append(finding.count()).append(" times)\n");
        }
        for (String frame : finding.stack()) {
            text.append("    at ").append(Text.printable(frame)).append('\n');
        }
        if (finding.createdAt() != null && !finding.createdAt().isEmpty()) {
            text.append("  created at:\n");
            for (String frame : finding.createdAt()) {
                text.append("    at ").append(Text.printable(frame)).append('\n');
            }
        }
        return text.toString();
    }

    static void createParent(Path path) throws IOException {
        Path parent = path.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
    }
}
