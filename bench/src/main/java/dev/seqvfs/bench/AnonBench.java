package dev.seqvfs.bench;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.SocketFlags;
import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The anonymous-inode workloads of seeds 000, 002 and 003, on SeqVFS with the new layout ({@code
 * seqvfs}), SeqVFS with the old shared pseudo-root ({@code seqvfs-old}), and the host kernel
 * through the JDK, which makes the same system calls:
 *
 * <ul>
 *   <li>{@link #socketClose}: {@code close(socket(AF_INET, SOCK_STREAM, 0))} in a loop, each client
 *       (JMH thread) with its own descriptor table (seeds 000, 003); host: {@code
 *       SocketChannel.open()} + {@code close()};
 *   <li>{@link #pipeClose}: {@code pipe()} + 2 x {@code close()}, every client sharing one
 *       descriptor table (seed 002, 16 threads); host: {@code Pipe.open()} + closing both ends.
 * </ul>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class AnonBench {
    /** New layout, old (shared-root) layout, or the host kernel. */
    public static final String SEQVFS_OLD = "seqvfs-old";

    /** One SeqVFS instance (or none for the host), shared by the clients. */
    @State(Scope.Benchmark)
    public static class Instance {
        /** {@code seqvfs}, {@code seqvfs-old} or {@code host}. */
        @Param({FsTarget.SEQVFS, SEQVFS_OLD, FsTarget.HOST})
        public String fs;

        SeqVfs vfs;
        VfsTask shared;
        final Queue<VfsTask> clientTasks = new ConcurrentLinkedQueue<>();

        /** Starts SeqVFS with the layout asked for, and the shared task of {@link #pipeClose}. */
        @Setup(Level.Trial)
        public void setUp() {
            if (!FsTarget.HOST.equals(fs)) {
                vfs =
                        SeqVfs.create(
                                ConfigFactory.parseString(
                                        "seqvfs.anon.shared-root = "
                                                + SEQVFS_OLD.equals(fs)
                                                + "\nseqvfs.fd.rlimit-nofile = 4096"));
                shared = vfs.newTask(Credentials.ROOT);
            }
        }

        /**
         * Ends every client's tasks (JMH may tear this state down before the clients'), then stops
         * SeqVFS after checking that every anonymous inode was freed.
         */
        @TearDown(Level.Trial)
        public void tearDown() {
            if (vfs != null) {
                for (VfsTask t : clientTasks) {
                    t.close();
                }
                shared.close();
                long live = vfs.anonInodesAlive();
                vfs.close();
                if (live != 0) {
                    throw new IllegalStateException(live + " anonymous inodes leaked");
                }
            }
        }
    }

    /** A client: its own task (own descriptor table) and a thread of the shared task. */
    @State(Scope.Thread)
    public static class Client {
        VfsTask own;
        VfsTask thread;

        /** Creates the client's tasks. */
        @Setup(Level.Trial)
        public void setUp(Instance in) {
            if (in.vfs != null) {
                own = in.vfs.newTask(Credentials.ROOT);
                thread = in.shared.newThread();
                in.clientTasks.add(own);
                in.clientTasks.add(thread);
            }
        }
    }

    /** {@code close(socket(AF_INET, SOCK_STREAM, 0))}. */
    @Benchmark
    public int socketClose(Instance in, Client c) throws IOException {
        if (c.own == null) {
            SocketChannel ch = SocketChannel.open();
            ch.close();
            return 1;
        }
        int fd = c.own.socket(SocketFlags.AF_INET, SocketFlags.SOCK_STREAM, 0);
        c.own.close(fd);
        return fd;
    }

    /** {@code pipe()} + {@code close()} of both ends, on the shared descriptor table. */
    @Benchmark
    public int pipeClose(Instance in, Client c) throws IOException {
        if (c.thread == null) {
            Pipe p = Pipe.open();
            p.source().close();
            p.sink().close();
            return 1;
        }
        int[] p = c.thread.pipe();
        c.thread.close(p[0]);
        c.thread.close(p[1]);
        return p[0];
    }
}
