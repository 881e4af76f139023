package dev.seqvfs.persist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.protocol.Mode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A directory's journal on the embedded H2 store: what was appended is what a new actor system
 * recovers, through snapshots too, and a batch is one write.
 */
class DirectoryEntityTest {
    private static final Duration T = Duration.ofSeconds(20);

    @TempDir Path data;

    static EntryRecord file(long ino, int perm) {
        return new EntryRecord(ino, Mode.S_IFREG | perm, 1000, 1000, 0, 1, 2, 3, null);
    }

    private static <T> T ask(
            ActorSystem<?> sys,
            ActorRef<DirectoryEntity.Command> e,
            java.util.function.Function<ActorRef<T>, DirectoryEntity.Command> make)
            throws Exception {
        CompletionStage<T> f = AskPattern.ask(e, make::apply, T, sys.scheduler());
        return f.toCompletableFuture().get(T.toSeconds(), TimeUnit.SECONDS);
    }

    private static ActorSystem<Void> system() {
        return ActorSystem.create(Behaviors.empty(), "entity-test", ConfigFactory.load());
    }

    /** Appends {@code batches} batches, then recovers in a new actor system. */
    private DirState roundTrip(String fsid, int snapshotEvery, List<List<DirEvent>> batches)
            throws Exception {
        DirState expected = DirState.EMPTY;
        ActorSystem<Void> sys = system();
        AutoCloseable held = null;
        try {
            PersistStore store = PersistStore.open(data, sys);
            // as a mount does: held open until the actor system is gone (H2: one connection, so
            // that it is not closed and opened again between two writes of the journal)
            held = store.holdOpen();
            ActorRef<DirectoryEntity.Command> e =
                    sys.systemActorOf(
                            DirectoryEntity.create(store, fsid, 7, snapshotEvery),
                            "d7",
                            org.apache.pekko.actor.typed.Props.empty());
            long seq = 0;
            for (List<DirEvent> b : batches) {
                DirectoryEntity.Appended a = ask(sys, e, r -> new DirectoryEntity.Append(b, r));
                seq += b.size();
                assertEquals(seq, a.seqNr(), "one sequence number per event");
                for (DirEvent ev : b) {
                    expected = expected.apply(ev);
                }
            }
            DirState live = ask(sys, e, DirectoryEntity.Recover::new);
            assertEquals(expected, live);
        } finally {
            sys.terminate();
            sys.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
            if (held != null) {
                held.close();
            }
        }
        ActorSystem<Void> again = system();
        AutoCloseable heldAgain = null;
        try {
            PersistStore store = PersistStore.open(data, again);
            heldAgain = store.holdOpen();
            ActorRef<DirectoryEntity.Command> e =
                    again.systemActorOf(
                            DirectoryEntity.create(store, fsid, 7, snapshotEvery),
                            "d7",
                            org.apache.pekko.actor.typed.Props.empty());
            DirState recovered = ask(again, e, DirectoryEntity.Recover::new);
            assertEquals(expected, recovered);
            return recovered;
        } finally {
            again.terminate();
            again.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
            if (heldAgain != null) {
                heldAgain.close();
            }
        }
    }

    @Test
    void appendedBatches_recoverInANewActorSystem_asTheyWereApplied() throws Exception {
        List<List<DirEvent>> batches = new ArrayList<>();
        batches.add(
                List.of(
                        new DirEvent.EntryAdded("a", file(10, 0644)),
                        new DirEvent.EntryAdded("b", file(11, 0600))));
        batches.add(List.of(new DirEvent.EntryRenamed("a", "c")));
        batches.add(
                List.of(
                        new DirEvent.AttrsChanged("b", file(11, 0444)),
                        new DirEvent.EntryRemoved("zzz", null),
                        new DirEvent.EntryAdded("d", file(10, 0644))));
        DirState s = roundTrip(UUID.randomUUID().toString(), 1000, batches);
        assertEquals(3, s.entries().size());
        assertFalse(s.entries().containsKey("a"));
        assertEquals(10, s.entries().get("c").ino());
        assertEquals(Mode.S_IFREG | 0444, s.entries().get("b").mode());
    }

    @Test
    void manyEvents_throughSnapshots_recoverTheSameState() throws Exception {
        List<List<DirEvent>> batches = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            List<DirEvent> b = new ArrayList<>();
            b.add(new DirEvent.EntryAdded("f" + i, file(100 + i, 0644)));
            if (i % 3 == 0 && i > 0) {
                b.add(new DirEvent.EntryRemoved("f" + (i - 1), null));
            }
            batches.add(b);
        }
        DirState s = roundTrip(UUID.randomUUID().toString(), 7, batches);
        assertEquals(60 - 19, s.entries().size());
        assertTrue(s.entries().containsKey("f59"));
    }
}
