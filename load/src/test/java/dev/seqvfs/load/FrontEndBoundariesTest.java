package dev.seqvfs.load;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The command line and the load tester are front ends (DESIGN.md, "Front ends"): clients of the
 * engine's public API ({@code SeqVfs}, {@code VfsTask}, {@code AsyncVfsTask} and the protocol
 * types) and nothing more. A front end that reaches into the engine's actors, snapshots or walk
 * fails the build here.
 */
class FrontEndBoundariesTest {
    @Test
    void loadAndCli_useOnlyTheEnginesPublicApi() {
        JavaClasses frontEnd =
                new ClassFileImporter()
                        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                        .importPackages("dev.seqvfs.load", "dev.seqvfs.cli");
        noClasses()
                .that()
                .resideInAnyPackage("dev.seqvfs.load..", "dev.seqvfs.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("dev.seqvfs.engine.(*)..")
                .because(
                        "front ends use the public API in dev.seqvfs.engine and dev.seqvfs.protocol only")
                .check(frontEnd);
    }
}
