package dev.seqvfs.persist.crash;

import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.engine.VfsTask;
import dev.seqvfs.persist.PersistfsType;
import dev.seqvfs.protocol.Credentials;
import dev.seqvfs.protocol.OpenFlags;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * The child JVM of {@code PersistfsCrashTest}: mounts persistfs on the data directory as its root,
 * takes the tree the parent says it holds (its operation lines on standard input, ended by an empty
 * line), then runs random operations until it is killed, writing {@code BEGIN <op>} before each and
 * {@code ACK} after it returned (a created file is written and fsync'd before its ACK; with a third
 * argument {@code async}, the root is mounted {@code async} and each call but a create is followed
 * by {@code sync(2)} before its ACK: a create's own {@code fsync} must make its name durable with
 * its content, as on ext4). Any call that fails writes {@code FAIL} and exits with 3.
 */
public final class CrashWorkload {
    private CrashWorkload() {}

    public static void main(String[] args) throws Exception {
        String data = args[0];
        long seed = Long.parseLong(args[1]);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        CrashModel model = new CrashModel();
        java.io.BufferedReader in =
                new java.io.BufferedReader(
                        new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            model.apply(line);
        }
        String mode = args.length > 2 ? args[2] : "dirsync";
        boolean async = mode.endsWith("async");
        SeqVfs vfs =
                SeqVfs.create(
                        com.typesafe.config.ConfigFactory.parseMap(
                                        java.util.Map.of(
                                                "seqvfs.root.options",
                                                PersistfsCrashTest.options(
                                                        java.nio.file.Path.of(data),
                                                        mode,
                                                        args.length > 3 ? args[3] : null)))
                                .withFallback(
                                        PersistfsType.rootConfig(java.nio.file.Path.of(data))));
        VfsTask t = vfs.newTask(Credentials.ROOT);
        out.println("READY");
        out.flush();
        Random r = new Random(seed);
        int[] counter = {(int) (seed & 0xffff) * 1000};
        while (true) {
            String op = model.next(r, counter);
            out.println("BEGIN\t" + op);
            out.flush();
            try {
                run(t, op);
                if (async && !op.startsWith("create")) {
                    t.sync(); // on an async mount a call is durable from here (a create: its fsync)
                }
            } catch (RuntimeException e) {
                out.println("FAIL\t" + e);
                out.flush();
                System.exit(3);
            }
            model.apply(op);
            out.println("ACK");
            out.flush();
        }
    }

    private static void run(VfsTask t, String line) {
        String[] f = line.split("\t");
        switch (f[0]) {
            case "mkdir" -> t.mkdir(f[1], 0755);
            case "create" -> {
                byte[] b = CrashModel.content(Integer.parseInt(f[2]), Long.parseLong(f[3]));
                int fd =
                        t.open(
                                f[1],
                                OpenFlags.O_CREAT | OpenFlags.O_EXCL | OpenFlags.O_WRONLY,
                                0644);
                try {
                    t.write(fd, b);
                    t.fsync(fd);
                } finally {
                    t.close(fd);
                }
            }
            case "unlink" -> t.unlink(f[1]);
            case "rmdir" -> t.rmdir(f[1]);
            case "rename" -> t.rename(f[1], f[2]);
            case "link" -> t.link(f[1], f[2]);
            case "chmod" -> t.chmod(f[1], Integer.parseInt(f[2], 8));
            default -> throw new IllegalArgumentException(line);
        }
    }
}
