package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Mode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.Test;

/**
 * The event schema holds: events and a snapshot state as schema versions 1, 2 and 3 wrote them
 * (stored fixtures, {@code fixtures/dir-events-vN.txt}: serializer id, manifest and CBOR bytes per
 * line) still deserialize to the same values; and today's events serialize through Pekko's {@code
 * jackson-cbor}, never Java serialization. Run with {@code -Dseqvfs.fixture.write=PATH} to write
 * the newest version's fixture (only when a new schema version is added beside the old one).
 */
class DirEventSchemaTest {
    static final EntryRecord FILE =
            new EntryRecord(42, Mode.S_IFREG | 0644, 1000, 100, 0, 11, 22, 33, null);
    static final EntryRecord LINK =
            new EntryRecord(43, Mode.S_IFLNK | 0777, 0, 0, 0, 1, 2, 3, "target/of/link");

    static List<Object> samples() {
        List<Object> l = new ArrayList<>();
        l.add(new DirEvent.EntryAdded("f", FILE));
        l.add(new DirEvent.EntryAdded("l", LINK));
        l.add(new DirEvent.EntryRemoved("gone", null));
        l.add(new DirEvent.EntryRemoved("kept", FILE));
        l.add(new DirEvent.EntryRenamed("a", "b"));
        l.add(new DirEvent.AttrsChanged("f", FILE));
        l.add(new DirEvent.AttrsChanged(null, FILE));
        l.add(new DirEvent.DirectoryRemoved());
        DirState s = DirState.EMPTY;
        for (int i = 0; i < 7; i++) {
            s = s.apply((DirEvent) l.get(i));
        }
        l.add(s);
        return l;
    }

    /** Version 2: version 1's samples, then the halves of a move and a state holding one. */
    static List<Object> samplesV2() {
        List<Object> l = samples();
        DirEvent.EntryMovedIn in = new DirEvent.EntryMovedIn("m", FILE, 5, 9, "src", LINK, null);
        DirEvent.EntryMovedIn swap = new DirEvent.EntryMovedIn("x", LINK, 6, 9, "y", null, FILE);
        l.add(in);
        l.add(swap);
        l.add(new DirEvent.EntryMovedOut("src", 5, null));
        l.add(new DirEvent.EntryMovedOut("y", 6, FILE));
        l.add(new DirEvent.MoveSettled(5));
        l.add(DirState.EMPTY.apply(in).apply(swap).apply(new DirEvent.MoveSettled(5)));
        return l;
    }

    /**
     * Version 3: version 2's samples, then a removed directory's records handed to its parent and a
     * state holding them (an older record of an inode does not replace a newer one).
     */
    static List<Object> samplesV3() {
        List<Object> l = samplesV2();
        EntryRecord older = new EntryRecord(42, Mode.S_IFREG | 0600, 7, 8, 0, 1, 2, 3, null);
        DirEvent.UnlinkedInherited h = new DirEvent.UnlinkedInherited(9, List.of(FILE, LINK));
        DirEvent.UnlinkedInherited stale = new DirEvent.UnlinkedInherited(10, List.of(older));
        l.add(h);
        l.add(DirState.EMPTY.apply(h).apply(stale));
        return l;
    }

    @Test
    void storedVersion1Events_deserializeToTheSameValues_andNoneUsesJavaSerialization()
            throws Exception {
        check("dir-events-v1.txt", samples(), false);
    }

    @Test
    void storedVersion2Events_deserializeToTheSameValues_andNoneUsesJavaSerialization()
            throws Exception {
        check("dir-events-v2.txt", samplesV2(), false);
    }

    @Test
    void storedVersion3Events_deserializeToTheSameValues_andNoneUsesJavaSerialization()
            throws Exception {
        check("dir-events-v3.txt", samplesV3(), true);
    }

    private void check(String fixture, List<Object> samples, boolean newest) throws Exception {
        ActorSystem<Void> sys =
                ActorSystem.create(Behaviors.empty(), "schema", ConfigFactory.load());
        try {
            Serialization ser = SerializationExtension.get(sys);
            String write = newest ? System.getProperty("seqvfs.fixture.write") : null;
            if (write != null) {
                StringBuilder out = new StringBuilder();
                for (Object o : samples) {
                    var s = ser.findSerializerFor(o);
                    out.append(s.identifier())
                            .append('\t')
                            .append(Serializers.manifestFor(s, o))
                            .append('\t')
                            .append(Base64.getEncoder().encodeToString(s.toBinary(o)))
                            .append('\n');
                }
                Files.writeString(Path.of(write), out.toString(), StandardCharsets.UTF_8);
            }
            for (Object o : samples) {
                String name = ser.findSerializerFor(o).getClass().getSimpleName();
                assertTrue(
                        name.contains("Jackson"), o.getClass() + " would be serialized by " + name);
            }
            List<String> lines;
            try (var in = getClass().getResourceAsStream("/fixtures/" + fixture)) {
                if (in == null) {
                    throw new IOException("fixture fixtures/" + fixture + " missing");
                }
                lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            }
            assertEquals(samples.size(), lines.size());
            for (int i = 0; i < lines.size(); i++) {
                String[] f = lines.get(i).split("\t", -1);
                Object back =
                        ser.deserialize(
                                        Base64.getDecoder().decode(f[2]),
                                        Integer.parseInt(f[0]),
                                        f[1])
                                .get();
                assertEquals(samples.get(i), back, "fixture line " + (i + 1));
            }
        } finally {
            sys.terminate();
            sys.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
    }
}
