import AFSecurity
import Foundation
import XCTest

/// The committed certificates made by `scripts/make-fixture-certificates.sh`.
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    static func certificate(_ name: String) throws -> Certificate {
        try Certificate(derEncoded: Data(contentsOf: url("\(name).der")))
    }

    /// OpenSSL's SPKI SHA-256 pins, by fixture name.
    static func opensslPins() throws -> [String: String] {
        let text = try String(contentsOf: url("pins.txt"), encoding: .utf8)
        return Dictionary(uniqueKeysWithValues: text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            return (String(parts[0]), String(parts[1]))
        })
    }
}
