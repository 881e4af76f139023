package dev.seqvfs.cli;

import com.typesafe.config.ConfigFactory;
import dev.seqvfs.engine.SeqVfs;
import dev.seqvfs.fuse.FuseMount;
import dev.seqvfs.fuse.FuseMountException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sun.misc.Signal;

/**
 * {@code seqvfs mount MOUNTPOINT [--foreground] [--private] [-o OPTIONS]}: mounts a fresh SeqVFS
 * instance (an empty tmpfs root) on the host through FUSE and serves it until it is unmounted
 * ({@code umount}, {@code fusermount -u}) or, in the foreground, until Ctrl-C or {@code SIGTERM}
 * (which unmount it first). Without {@code --foreground} it starts the server as a detached child
 * JVM, waits until the mount is live, and returns; the server's messages from then on (warnings,
 * its "unmounted" line) go to the log file that the ready line names (removed after a clean
 * unmount), since a server holding the caller's stderr would hold up a caller that reads it to its
 * end. Run by root it adds {@code allow_other} unless {@code --private}: every user may enter, and
 * the engine's permission checks decide. Exit status: 0 served and unmounted (or, in the
 * background, mounted), 1 the mount failed (one line on stderr: {@code seqvfs mount: WHY}), 2 bad
 * input.
 */
@Command(
        name = "mount",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        versionProvider = VersionProvider.class,
        description = {
            "Mount a SeqVFS instance on MOUNTPOINT through FUSE, so that any program on the host"
                    + " can use it; serve it until umount MOUNTPOINT (or fusermount -u MOUNTPOINT),"
                    + " or Ctrl-C with --foreground. By default it is an empty tmpfs root whose"
                    + " files live in the JVM's heap and are gone after the unmount; with"
                    + " --data-dir D it is the persistent type, kept in D (sync(1) does not reach"
                    + " a FUSE server: fsync, or --data-options sync, makes contents durable).",
            "Needs FUSE: apt-get install fuse3 (Debian; libfuse2 too for -o transport=libfuse2).",
            "Example: seqvfs mount /mnt/seqvfs; cd /mnt/seqvfs; ...; umount /mnt/seqvfs"
        })
final class MountCommand implements Callable<Integer> {
    /** The line the foreground server prints on stdout once the mount is live. */
    static final String READY = "seqvfs: mounted";

    @Spec CommandSpec spec;

    @Parameters(paramLabel = "MOUNTPOINT", description = "An existing, empty directory.")
    Path mountPoint;

    @Option(
            names = "--data-dir",
            paramLabel = "D",
            description =
                    "Serve the persistent type (persistfs) with its journal in D (made if absent),"
                            + " not tmpfs: what it holds is there at the next mount.")
    Path dataDir;

    @Option(
            names = "--data-options",
            paramLabel = "OPTS",
            description =
                    "With --data-dir: persistfs mount options, comma-separated: async (namespace"
                            + " changes durable at fsync of the directory or sync, not at return),"
                            + " sync (every write too), snapshot_every=N.")
    String dataOptions;

    @Option(
            names = "--foreground",
            description =
                    "Serve in this process (Ctrl-C unmounts and exits); default: in the background.")
    boolean foreground;

    @Option(
            names = "-o",
            paramLabel = "OPTIONS",
            description =
                    "Mount options, comma-separated, repeatable: ro, nosuid, allow_other,"
                            + " default_permissions, entry_timeout=S, attr_timeout=S,"
                            + " negative_timeout=S (seconds the kernel may cache names, attributes"
                            + " and \"no such file\"; 1 by default, 0 with --strict), ...;"
                            + " transport=libfuse2 serves"
                            + " through libfuse 2 (jnr-fuse) instead of the default /dev/fuse"
                            + " transport, with its fixed options "
                            + FuseMount.FIXED_OPTIONS
                            + ".")
    List<String> options = new ArrayList<>();

    @Option(
            names = "--private",
            description =
                    "Let only the user who mounted in (FUSE's default). Without it, a mount made"
                            + " by root gets allow_other: every user may enter, and the engine's"
                            + " permission checks (with each caller's uid and groups) decide what"
                            + " they may do, as on any mounted file system.")
    boolean privateMount;

    @Option(
            names = "--strict",
            description =
                    "Let the kernel cache nothing: every lookup and stat asks the engine, and the"
                            + " engine alone checks permissions (FuseMount's default, for an"
                            + " instance that JVM code changes too). Without it, the instance is"
                            + " this mount's alone, so the kernel may cache what it saw: "
                            + FuseMount.CACHED_OPTIONS
                            + ".")
    boolean strict;

    /** The background mode's log file, which its server removes after a clean unmount. */
    @Option(names = "--server-log", hidden = true)
    Path serverLog;

    @Override
    public Integer call() {
        if (dataOptions != null && dataDir == null) {
            // without --data-dir the mount is tmpfs: its options would be ignored, and an
            // "async" or "sync" the user asked for would silently mean nothing
            err().println(
                            "seqvfs mount: --data-options needs --data-dir (without it the mount is tmpfs,"
                                    + " whose files are gone at the unmount)");
            err().flush();
            return 2;
        }
        if (!privateMount && FuseMount.isRoot() && !hasOption("allow_other")) {
            // a file system that root mounts is everyone's, under its permissions (the
            // background mode passes the option on to its server)
            options.add("allow_other");
        }
        if (!strict && !hasOption("transport=libfuse2")) {
            // the instance is this mount's alone, so the kernel may cache what it saw (before
            // the caller's own options, which override the timeouts)
            options.add(0, FuseMount.CACHED_OPTIONS);
        }
        return foreground ? serve() : background();
    }

    private boolean hasOption(String name) {
        for (String o : options) {
            for (String one : o.split(",", -1)) {
                if (one.trim().equals(name)) {
                    return true;
                }
            }
        }
        return false;
    }

    private PrintWriter err() {
        return spec.commandLine().getErr();
    }

    private int fail(String message) {
        err().println("seqvfs mount: " + message);
        err().flush();
        return 1;
    }

    private int serve() {
        if (dataDir != null) {
            DataDir.use(dataDir);
            if (dataOptions != null) {
                DataDir.options(dataOptions);
            }
        }
        SeqVfs made;
        try {
            made = SeqVfs.create(FuseMount.engineConfig(ConfigFactory.load()));
        } catch (RuntimeException e) {
            // one line with the root cause (a data directory in use, a corrupt store), not a trace
            return fail("cannot start the file system: " + Causes.line(e));
        } catch (OutOfMemoryError e) {
            return fail("cannot start the file system: " + Causes.heapTooSmall(dataDir));
        }
        try (SeqVfs vfs = made) {
            FuseMount mount;
            try {
                mount = FuseMount.mount(vfs, mountPoint, options);
            } catch (FuseMountException e) {
                return fail(e.getMessage());
            }
            Runnable stop =
                    () -> {
                        if (!mount.unmount() && mount.isServing()) {
                            err().println(
                                            "seqvfs mount: "
                                                    + mount.mountPoint()
                                                    + " is busy: detached; serving the programs that"
                                                    + " still use it until they let go");
                            err().flush();
                        }
                    };
            Signal.handle(new Signal("INT"), s -> stop.run());
            Signal.handle(new Signal("TERM"), s -> stop.run());
            spec.commandLine().getOut().println(READY + " at " + mount.mountPoint());
            spec.commandLine().getOut().flush();
            try {
                while (!mount.awaitUnmounted(1, TimeUnit.SECONDS)) {
                    // serving
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stop.run();
            }
            mount.close();
            err().println("seqvfs mount: " + mount.mountPoint() + " unmounted");
            err().flush();
            if (serverLog != null) {
                deleteQuietly(serverLog); // a clean end: nothing in it a user needs
            }
            return 0;
        }
    }

    /** Starts {@code seqvfs mount --foreground ...} as a detached child and waits for its mount. */
    private int background() {
        // The server's stderr goes to a log file, not to ours: a detached server that kept our
        // stderr open would hold a caller reading it (out=$(seqvfs mount ...), a pipe into tee)
        // until the unmount. If the mount fails, the log is what we print.
        Path log;
        try {
            log = Files.createTempFile("seqvfs-mount-", ".log");
        } catch (IOException e) {
            return fail("cannot create the server's log file: " + e.getMessage());
        }
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(Path.of("/usr/bin/setsid"))) {
            cmd.add("/usr/bin/setsid"); // its own session: the terminal's hangup does not reach it
        }
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(Main.class.getName());
        cmd.add("mount");
        cmd.add("--foreground");
        cmd.add("--server-log");
        cmd.add(log.toAbsolutePath().toString());
        if (privateMount) {
            cmd.add("--private");
        }
        // the options below already say what the kernel may cache
        cmd.add("--strict");
        if (dataOptions != null) {
            cmd.add("--data-options");
            cmd.add(dataOptions);
        }
        if (dataDir != null) {
            cmd.add("--data-dir");
            cmd.add(dataDir.toAbsolutePath().toString());
        }
        for (String o : options) {
            cmd.add("-o");
            cmd.add(o);
        }
        cmd.add(mountPoint.toAbsolutePath().toString());
        Process child;
        try {
            child =
                    new ProcessBuilder(cmd)
                            .redirectInput(
                                    ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                            .redirectError(log.toFile())
                            .start();
        } catch (IOException e) {
            deleteQuietly(log);
            return fail("cannot start the server: " + e.getMessage());
        }
        try (BufferedReader out =
                new BufferedReader(
                        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            // the server's stdout carries READY once the mount is live; anything before it (a
            // JVM option's own message, say) is passed on to stderr
            for (String line = out.readLine(); line != null; line = out.readLine()) {
                if (line.startsWith(READY)) {
                    spec.commandLine()
                            .getOut()
                            .println(line + " (server pid " + child.pid() + ", log " + log + ")");
                    spec.commandLine().getOut().flush();
                    return 0;
                }
                err().println(line);
                err().flush();
            }
            int status = child.waitFor();
            err().print(Files.readString(log, StandardCharsets.UTF_8)); // why it failed
            err().flush();
            deleteQuietly(log);
            return status == 0 ? 1 : status;
        } catch (IOException e) {
            return fail("lost the server: " + e.getMessage() + " (its log: " + log + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            child.destroy();
            deleteQuietly(log);
            return fail("interrupted");
        }
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a leftover empty log in the temporary directory is no failure of the mount
        }
    }
}
