/// SplitMix64: a small, seedable generator so that random round trips are reproducible.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A string of 0..<`maxLength` characters drawn from ASCII, punctuation, accented Latin,
    /// CJK and emoji (including a flag, a multi-scalar character).
    public mutating func string(maxLength: Int, minLength: Int = 0, excluding excluded: Set<Character> = []) -> String {
        // "\r\n" in one literal is a single Character; list it and its halves separately and
        // filter by scalar so that excluding "\r" or "\n" also excludes the pair.
        let characters: [Character] = Array("abcXYZ019 -._~!$&'()*+,;=:#[]@/?%\"éüß日本語🙂👍🏽🇫🇷\t") + ["\r", "\n", "\r\n"]
        let alphabet = characters.filter { character in
            !character.unicodeScalars.contains { excluded.contains(Character($0)) }
        }
        let count = Int.random(in: minLength...max(minLength, maxLength), using: &self)
        return String((0..<count).map { _ in alphabet.randomElement(using: &self)! })
    }

    public mutating func bytes(maxCount: Int) -> [UInt8] {
        let count = Int.random(in: 0...maxCount, using: &self)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}
