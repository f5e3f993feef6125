import AFSecurity
import Foundation
import XCTest

/// The committed certificates (Tests/SecurityTests/Fixtures) made by `scripts/make-fixture-certificates.sh`.
public enum Fixtures {
    public static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SecurityTests/Fixtures")

    public static func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    public static func certificate(_ name: String) throws -> Certificate {
        try Certificate(derEncoded: Data(contentsOf: url("\(name).der")))
    }

    /// OpenSSL's SPKI SHA-256 pins, by fixture name.
    public static func opensslPins() throws -> [String: String] {
        let text = try String(contentsOf: url("pins.txt"), encoding: .utf8)
        return Dictionary(uniqueKeysWithValues: text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            return (String(parts[0]), String(parts[1]))
        })
    }
}
