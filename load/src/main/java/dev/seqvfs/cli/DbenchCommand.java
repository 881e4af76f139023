package dev.seqvfs.cli;

import dev.seqvfs.load.dbench.DbenchReport;
import dev.seqvfs.load.dbench.DbenchRunner;
import dev.seqvfs.load.dbench.Loadfile;
import dev.seqvfs.load.dbench.LoadfileException;
import dev.seqvfs.load.dbench.ReplayResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code seqvfs load dbench}: replays a dbench client loadfile. */
@Command(name = "dbench", mixinStandardHelpOptions = true,
        description = "Replay a dbench client loadfile on SeqVFS, one actor per client.")
public final class DbenchCommand implements Callable<Integer> {
    @Option(names = "--clients", defaultValue = "1", description = "clients (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--time", defaultValue = "20", description = "seconds to run (default ${DEFAULT-VALUE})")
    int time;

    @Option(names = "--loadfile", defaultValue = "/usr/share/dbench/client.txt",
            description = "loadfile (default ${DEFAULT-VALUE})")
    Path loadfile;

    @Option(names = "--threads", defaultValue = "0", hidden = true)
    int threads;

    @Override
    public Integer call() throws Exception {
        Loadfile lf;
        try {
            lf = Loadfile.read(loadfile);
        } catch (LoadfileException e) {
            System.err.println("seqvfs load dbench: " + e.getMessage());
            return 2;
        }
        DbenchRunner runner = new DbenchRunner(System.out, 10, threads);
        ReplayResult r = runner.runSeqVfs(lf.ops(), clients, Duration.ofSeconds(time));
        DbenchReport.print(System.out, r);
        return r.mismatches() == 0 ? 0 : 1;
    }
}
