package dev.seqvfs.tests.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.Fcntl;
import dev.seqvfs.protocol.Flock;
import dev.seqvfs.protocol.OpenFlags;
import dev.seqvfs.protocol.SocketFlags;
import dev.seqvfs.protocol.VfsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A call keeps the file it uses (Linux's {@code fdget}/{@code fdput}): a thread parks in a call on
 * a descriptor, a second thread of the same task (a shared descriptor table) closes that
 * descriptor, then makes the event that releases the parked call. {@code close} removes the
 * descriptor only; the file lives until the parked call returns, and its release (the pipe losing a
 * reader, the last close's {@code flock} release) comes then.
 *
 * <p>Each case runs on the host (hostops with a pthread per parked call: the real system calls on
 * {@code /dev/shm}) and on SeqVFS (a task and its {@code newThread()}), and the answers must be
 * equal, errnos included. Found by an outside harness: SeqVFS answered {@code EPIPE} to the write
 * and left the reader parked, since {@code close} dropped the last reference while the read held
 * none.
 */
class CloseRaceDifferentialTest {
    @BeforeAll
    static void host() {
        String why = HostKernel.unavailableReason();
        Assumptions.assumeTrue(why == null, why);
    }

    /**
     * The cases. {@code $x} in a line is replaced by the value named {@code x}; a line {@code "=x
     * y"} before it names the fields of the previous answer ("O 3 4" gives x = 3, y = 4).
     */
    enum Case {
        /** A read parked on an empty pipe gets the bytes written after its fd was closed. */
        PIPE_READ(
                "PIPE",
                "=r w",
                "SPAWN 1 READ $r 10",
                "AWAIT 1",
                "CLOSE $r",
                "WRITE $w 3",
                "JOIN 1",
                "WRITE $w 1", // the read returned: its reference was the last reader's
                "CLOSE $w"),
        /** The same on a stream socket. */
        SOCKET_READ(
                "SOCKETPAIR",
                "=a b",
                "SPAWN 1 READ $a 10",
                "AWAIT 1",
                "CLOSE $a",
                "WRITE $b 3",
                "JOIN 1",
                "WRITE $b 1",
                "CLOSE $b"),
        /** A write parked on a full pipe completes once a reader makes room. */
        PIPE_WRITE(
                "PIPE",
                "=r w",
                "WRITE $w 65536",
                "SPAWN 1 WRITE $w 10",
                "AWAIT 1",
                "CLOSE $w",
                "READ $r 65536",
                "JOIN 1",
                "READ $r 100",
                "READ $r 100", // end of file: the writer's last reference went with the write
                "CLOSE $r"),
        /** A FIFO keeps its reader while the read is parked: a non-blocking writer may open it. */
        FIFO_READ(
                "MKNOD -100 " + HostSide.arg("fifo") + " 4480",
                "OPENFIFO -100 " + HostSide.arg("fifo") + " 2",
                "=f",
                "OPENFIFO -100 " + HostSide.arg("fifo") + " 2049",
                "=w",
                "SPAWN 1 READ $f 10",
                "AWAIT 1",
                "CLOSE $f",
                "WRITE $w 3",
                "JOIN 1",
                "CLOSE $w",
                "UNLINK -100 " + HostSide.arg("fifo") + " 0"),
        /**
         * A blocking {@code flock} parked behind another description's lock takes the lock once it
         * is free, and its release drops it when the call returns.
         */
        FLOCK(
                "OPEN -100 " + HostSide.arg("f") + " 66 420",
                "=a",
                "OPEN -100 " + HostSide.arg("f") + " 2 0",
                "=b",
                "FLOCK $a 2",
                "SPAWN 1 FLOCK $b 2",
                "AWAIT 1",
                "CLOSE $b",
                "FLOCK $a 8",
                "JOIN 1",
                "OPEN -100 " + HostSide.arg("f") + " 2 0",
                "=c",
                "FLOCK $c 6", // LOCK_EX | LOCK_NB: free again
                "CLOSE $c",
                "CLOSE $a",
                "UNLINK -100 " + HostSide.arg("f") + " 0"),
        /**
         * {@code F_SETLKW} parked behind another process's lock: once it gets the lock it finds its
         * descriptor closed, drops the lock and fails with {@code EBADF} ({@code fcntl_setlk}'s
         * close race); the POSIX locks were dropped at the close itself.
         */
        SETLKW(
                "OPEN -100 " + HostSide.arg("g") + " 66 420",
                "=a",
                "CLOSE $a",
                "CHILDLOCK " + HostSide.arg("g") + " 1 0 0",
                "OPEN -100 " + HostSide.arg("g") + " 2 0",
                "=b",
                "SPAWN 1 SETLK $b 7 1 0 0",
                "AWAIT 1",
                "CLOSE $b",
                "CHILDUNLOCK",
                "JOIN 1",
                "OPEN -100 " + HostSide.arg("g") + " 2 0",
                "=c",
                "SETLK $c 6 1 0 0",
                "CLOSE $c",
                "UNLINK -100 " + HostSide.arg("g") + " 0");

        final List<String> lines;

        Case(String... lines) {
            this.lines = List.of(lines);
        }
    }

    @ParameterizedTest
    @EnumSource(Case.class)
    void closeFromASecondThreadWhileACallIsParked_matchesTheHost(Case c) throws Exception {
        List<String> host;
        try (HostSide h = new HostSide()) {
            host = run(c, h::call, id -> "O " + awaitHost(h, id));
        }
        List<String> seqvfs;
        try (SeqVfs vfs = SeqVfs.create(ConfigFactory.parseString("seqvfs.proc.mount = off"))) {
            VfsInterpreter v = new VfsInterpreter(vfs.newTask(Credentials.ROOT));
            seqvfs = run(c, v::call, id -> "O " + v.awaitParked(id));
            v.close();
        }
        assertEquals(host, seqvfs, c + ": answers, line by line, host against SeqVFS");
    }

    /** Runs {@code c}'s lines through {@code call}, {@code AWAIT id} through {@code await}. */
    private static List<String> run(
            Case c, Function<String, String> call, Function<Integer, String> await) {
        return run(c.lines, call, await);
    }

    /** Runs {@code lines} (a case's script) through {@code call} and {@code await}. */
    static List<String> run(
            List<String> lines, Function<String, String> call, Function<Integer, String> await) {
        Map<String, String> vars = new HashMap<>();
        List<String> answers = new ArrayList<>();
        String last = null;
        for (String raw : lines) {
            if (raw.startsWith("=")) {
                String[] names = raw.substring(1).split(" ", -1);
                String[] f = last.split(" ", -1);
                for (int i = 0; i < names.length; i++) {
                    vars.put(names[i], f[1 + i]);
                }
                continue;
            }
            String line = raw;
            for (Map.Entry<String, String> e : vars.entrySet()) {
                line = line.replace("$" + e.getKey(), e.getValue());
            }
            String answer =
                    line.startsWith("AWAIT ")
                            ? await.apply(Integer.parseInt(line.substring(6)))
                            : call.apply(line);
            answers.add(raw + " -> " + answer);
            last = answer;
        }
        return answers;
    }

    /** Polls the host until thread {@code id} sleeps in the kernel; 1 once it does, 0 if never. */
    static int awaitHost(HostSide h, int id) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (h.call("PARKED " + id).equals("O 1")) {
                return 1;
            }
            Thread.onSpinWait();
        }
        return 0;
    }

    /**
     * The same verbs over SeqVFS: the lines run on a thread of the task ({@code newThread()}, the
     * same descriptor table), a spawned call on the task itself in a Java thread of its own, the
     * other process's lock on a forked task.
     */
    static final class VfsInterpreter {
        private final VfsTask task;
        private final VfsTask second;
        private final Map<Integer, Thread> threads = new HashMap<>();
        private final Map<Integer, CompletableFuture<String>> results = new HashMap<>();
        private VfsTask lockChild;

        VfsInterpreter(VfsTask task) {
            this.task = task;
            this.second = task.newThread();
        }

        String call(String line) {
            return run(second, line);
        }

        void close() {
            if (lockChild != null) {
                lockChild.close();
            }
            second.close();
            task.close();
        }

        int awaitParked(int id) {
            Thread th = threads.get(id);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                Thread.State s = th.getState();
                if (s == Thread.State.WAITING || s == Thread.State.TIMED_WAITING) {
                    return 1;
                }
                Thread.onSpinWait();
            }
            return 0;
        }

        private String run(VfsTask t, String line) {
            String[] a = line.split(" ", -1);
            try {
                switch (a[0]) {
                    case "PIPE" -> {
                        int[] p = t.pipe();
                        return "O " + p[0] + " " + p[1];
                    }
                    case "SOCKETPAIR" -> {
                        int[] p = t.socketpair(SocketFlags.AF_UNIX, SocketFlags.SOCK_STREAM, 0);
                        return "O " + p[0] + " " + p[1];
                    }
                    case "OPEN" -> {
                        return "O " + t.open(path(a[2]), num(a[3]), num(a[4]));
                    }
                    case "OPENFIFO" -> {
                        return "O " + t.open(path(a[2]), num(a[3]));
                    }
                    case "MKNOD" -> {
                        t.mknod(path(a[2]), num(a[3]), 0);
                        return "O 0";
                    }
                    case "UNLINK" -> {
                        t.unlink(path(a[2]));
                        return "O 0";
                    }
                    case "CLOSE" -> {
                        t.close(num(a[1]));
                        return "O 0";
                    }
                    case "READ" -> {
                        return "O " + t.read(num(a[1]), new byte[num(a[2])], 0, num(a[2]));
                    }
                    case "WRITE" -> {
                        return "O " + t.write(num(a[1]), new byte[num(a[2])]);
                    }
                    case "FLOCK" -> {
                        t.flock(num(a[1]), num(a[2]));
                        return "O 0";
                    }
                    case "SETLK" -> {
                        t.fcntlLock(
                                num(a[1]),
                                num(a[2]),
                                Flock.of(num(a[3]), Long.parseLong(a[4]), Long.parseLong(a[5])));
                        return "O 0";
                    }
                    case "CHILDLOCK" -> {
                        lockChild = t.fork();
                        int fd = lockChild.open(path(a[1]), OpenFlags.O_RDWR);
                        lockChild.fcntlLock(
                                fd,
                                Fcntl.F_SETLK,
                                Flock.of(num(a[2]), Long.parseLong(a[3]), Long.parseLong(a[4])));
                        return "O 0";
                    }
                    case "CHILDUNLOCK" -> {
                        lockChild.close();
                        lockChild = null;
                        return "O 0";
                    }
                    case "SPAWN" -> {
                        int id = num(a[1]);
                        String rest = line.substring(line.indexOf(a[2], 6 + a[1].length()));
                        CompletableFuture<String> r = new CompletableFuture<>();
                        Thread th =
                                new Thread(() -> r.complete(run(task, rest)), "close-race-" + id);
                        th.setDaemon(true);
                        threads.put(id, th);
                        results.put(id, r);
                        th.start();
                        return "O 0";
                    }
                    case "JOIN" -> {
                        return results.get(num(a[1])).get(10, TimeUnit.SECONDS);
                    }
                    default -> throw new IllegalArgumentException("no verb " + line);
                }
            } catch (VfsException e) {
                return "E " + e.errno().number();
            } catch (Exception e) {
                return "X " + e;
            }
        }

        /** Decodes a hostops path argument ("s" + hex). */
        private static String path(String arg) {
            StringBuilder b = new StringBuilder();
            for (int i = 1; i + 1 < arg.length(); i += 2) {
                b.append((char) Integer.parseInt(arg.substring(i, i + 2), 16));
            }
            return "/" + b;
        }

        private static int num(String s) {
            return Integer.parseInt(s);
        }
    }
}
