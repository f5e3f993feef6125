@testable import AFTransport
import XCTest

/// Whether the transport may run on a libcurl, from the facts its bridges found, for each
/// variant users run: only a libcurl on OpenSSL whose OpenSSL is the very library the bridge
/// loaded, and never one too old.
final class LibcurlCompatibilityTests: XCTestCase {
    private func facts(
        _ version: String = "7.88.1", _ number: UInt32 = 0x07_58_01, backend: String? = "OpenSSL/3.0.19",
        loaded: String? = "OpenSSL 3.0.19 27 Jan 2026", openSSLError: String? = nil, isLibcurls: Bool = true
    ) -> LibcurlCompatibility.Facts {
        LibcurlCompatibility.Facts(version: version, versionNumber: number, tlsBackend: backend, openSSLError: openSSLError,
                                   openSSLVersion: loaded, openSSLIsLibcurls: isLibcurls)
    }

    func testDebian12sLibcurlOnItsOpenSSL3IsUsable() {
        XCTAssertNil(LibcurlCompatibility.problem(with: facts()))
    }

    func testBackportsLibcurl8OnOpenSSL3IsUsable() {
        XCTAssertNil(LibcurlCompatibility.problem(with: facts("8.14.1", 0x08_0E_01, backend: "OpenSSL/3.0.17", loaded: "OpenSSL 3.0.17 1 Jul 2025")))
    }

    func testALibcurlOnOpenSSL111IsUsableWhenTheBridgeLoadedThatLibrary() {
        XCTAssertNil(LibcurlCompatibility.problem(with: facts("7.74.0", 0x07_4A_00, backend: "OpenSSL/1.1.1w", loaded: "OpenSSL 1.1.1w  11 Sep 2023")))
    }

    func testALibcurlOnOpenSSL4IsUsableWhenTheBridgeLoadedThatLibrary() {
        XCTAssertNil(LibcurlCompatibility.problem(with: facts("8.17.0", 0x08_11_00, backend: "OpenSSL/4.0.0", loaded: "OpenSSL 4.0.0 14 Apr 2026")))
    }

    func testAGnuTLSLibcurlIsRefusedNamingGnuTLS() {
        let problem = LibcurlCompatibility.problem(with: facts(backend: "GnuTLS/3.7.9"))
        XCTAssertEqual(problem, .tlsBackendUnsupported(libcurl: "7.88.1", backend: "GnuTLS/3.7.9"))
        XCTAssertEqual(problem?.description,
                       "libcurl 7.88.1 uses GnuTLS/3.7.9, not OpenSSL: the security policy can be enforced only in OpenSSL's handshake")
    }

    func testALibcurlWithoutTLSIsRefused() {
        XCTAssertEqual(LibcurlCompatibility.problem(with: facts(backend: nil)), .tlsBackendUnsupported(libcurl: "7.88.1", backend: "no TLS library"))
    }

    func testAMultiBackendLibcurlIsUsableOnlyWhenOpenSSLIsTheOneSelected() {
        XCTAssertNil(LibcurlCompatibility.problem(with: facts(backend: "OpenSSL/3.0.19 (GnuTLS/3.7.9)")))
        XCTAssertEqual(LibcurlCompatibility.problem(with: facts(backend: "(OpenSSL/3.0.19) GnuTLS/3.7.9")),
                       .tlsBackendUnsupported(libcurl: "7.88.1", backend: "(OpenSSL/3.0.19) GnuTLS/3.7.9"))
    }

    func testLibreSSLAndBoringSSLAreRefused() {
        XCTAssertEqual(LibcurlCompatibility.problem(with: facts(backend: "LibreSSL/3.8.2")),
                       .tlsBackendUnsupported(libcurl: "7.88.1", backend: "LibreSSL/3.8.2"))
        XCTAssertEqual(LibcurlCompatibility.problem(with: facts(backend: "BoringSSL")), .tlsBackendUnsupported(libcurl: "7.88.1", backend: "BoringSSL"))
    }

    func testALibcurlOnOpenSSL111BesideTheBridgesOpenSSL3IsRefused() {
        // Debian 11's libcurl with libssl.so.3 also installed: libcurl's 1.1 SSL_CTX must never
        // reach 3.0's functions (this crashed in the handshake).
        let problem = LibcurlCompatibility.problem(with: facts("7.74.0", 0x07_4A_00, backend: "OpenSSL/1.1.1w", isLibcurls: false))
        XCTAssertEqual(problem, .openSSLMismatch(libcurlUses: "OpenSSL/1.1.1w", loaded: "OpenSSL 3.0.19 27 Jan 2026"))
    }

    func testTheSameVersionInAnotherCopyThanLibcurlsIsRefused() {
        XCTAssertEqual(LibcurlCompatibility.problem(with: facts(isLibcurls: false)),
                       .openSSLMismatch(libcurlUses: "OpenSSL/3.0.19", loaded: "OpenSSL 3.0.19 27 Jan 2026, another copy than the library libcurl calls"))
    }

    func testAnOpenSSLTheBridgeCannotUseIsRefusedWithItsReason() {
        // Amazon Linux 2: libcurl on OpenSSL 1.0.2k.
        let reason = "OpenSSL 1.0.2k-fips  26 Jan 2017 (/lib64/libssl.so.10) is older than OpenSSL 1.1.1b, the oldest the bridge supports"
        XCTAssertEqual(LibcurlCompatibility.problem(with: facts(backend: "OpenSSL/1.0.2k", loaded: nil, openSSLError: reason)),
                       .openSSLUnusable(libcurlUses: "OpenSSL/1.0.2k", reason: reason))
    }

    func testALibcurlOlderThan7_61IsRefused() {
        XCTAssertEqual(LibcurlCompatibility.problem(with: facts("7.58.0", 0x07_3A_00)), .libcurlTooOld(version: "7.58.0", minimum: "7.61.0"))
        XCTAssertNil(LibcurlCompatibility.problem(with: facts("7.61.0", 0x07_3D_00)))
    }

    func testReleasesCompareWholeVersionsNotPrefixes() {
        XCTAssertTrue(LibcurlCompatibility.isSameRelease("OpenSSL/3.0.19", as: "OpenSSL 3.0.19 27 Jan 2026"))
        XCTAssertTrue(LibcurlCompatibility.isSameRelease("OpenSSL/3.0.19", as: "OpenSSL 3.0.19"))
        XCTAssertFalse(LibcurlCompatibility.isSameRelease("OpenSSL/3.0.1", as: "OpenSSL 3.0.19 27 Jan 2026"))
        XCTAssertFalse(LibcurlCompatibility.isSameRelease("OpenSSL/1.1.1", as: "OpenSSL 1.1.1w  11 Sep 2023"))
        XCTAssertFalse(LibcurlCompatibility.isSameRelease("OpenSSL/", as: "OpenSSL  27 Jan 2026"))
    }
}
