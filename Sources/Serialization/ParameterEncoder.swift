import Foundation

/// Turns an `Encodable` value into a `ParameterValue`, so that `Encodable` parameters are
/// encoded by exactly the same rules as dictionaries: keyed containers become dictionaries,
/// unkeyed containers arrays. `Date` becomes an ISO 8601 string, `URL` its absolute string,
/// `Data` raw bytes and a `Set` a sorted set (the plain key repeated, as for `NSSet`), instead
/// of the representation their own `encode(to:)` would write (a `Set` would otherwise encode
/// as an array in hash order, different in every process).
enum ParameterEncoder {
    static func encode(_ value: any Encodable) throws -> ParameterValue {
        do {
            return try node(encoding: value).parameterValue
        } catch let error as RequestSerializationError {
            throw error
        } catch {
            throw RequestSerializationError.encodingFailed(underlying: error)
        }
    }

    fileprivate static func node(encoding value: any Encodable, codingPath: [any CodingKey] = []) throws -> Node {
        let node = Node()
        if let special = try special(value) {
            node.content = .value(special)
        } else {
            try value.encode(to: NodeEncoder(node: node, codingPath: codingPath))
        }
        return node
    }

    private static func special(_ value: any Encodable) throws -> ParameterValue? {
        switch value {
        case let set as Set<AnyHashable>:
            return try ParameterValue(set)
        case let date as Date:
            let text = date.formatted(.iso8601)
            return .scalar(text: text, object: text)
        case let url as URL:
            return .scalar(text: url.absoluteString, object: url.absoluteString)
        case let data as Data:
            return .data(data)
        case let decimal as Decimal:
            return .scalar(text: decimal.description, object: NSDecimalNumber(decimal: decimal))
        default:
            return nil
        }
    }
}

/// Mutable storage shared by an encoder and the containers it hands out.
private final class Node {
    enum Content {
        case empty
        case value(ParameterValue)
        case keyed([String: Node])
        case unkeyed([Node])
    }

    var content: Content = .empty

    var parameterValue: ParameterValue {
        switch content {
        case .empty: return .dictionary([])
        case .value(let value): return value
        case .keyed(let children):
            return .dictionary(children
                .sorted { ParameterValue.precedes($0.key, $1.key) }
                .map { (key: $0.key, value: $0.value.parameterValue) })
        case .unkeyed(let children): return .array(children.map(\.parameterValue))
        }
    }

    func set(_ child: Node, forKey key: String) {
        guard case .keyed(var children) = content else {
            content = .keyed([key: child])
            return
        }
        children[key] = child
        content = .keyed(children)
    }

    func append(_ child: Node) {
        guard case .unkeyed(var children) = content else {
            content = .unkeyed([child])
            return
        }
        children.append(child)
        content = .unkeyed(children)
    }

    static func scalar<T: CustomStringConvertible>(_ value: T) -> Node {
        let node = Node()
        node.content = .value(.scalar(text: value.description, object: value))
        return node
    }

    static func floatingPoint(_ number: NSNumber) -> Node {
        let node = Node()
        node.content = .value(.scalar(text: ParameterValue.text(for: number), object: number))
        return node
    }
}

private struct NodeEncoder: Encoder {
    let node: Node
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .keyed = node.content {} else { node.content = .keyed([:]) }
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .unkeyed = node.content {} else { node.content = .unkeyed([]) }
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

/// Index keys for unkeyed containers, used only to build coding paths for error messages.
private struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// The key `superEncoder()` stores a superclass's values under.
private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        let child = Node()
        child.content = .value(.null)
        node.set(child, forKey: key.stringValue)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        let child = Node()
        child.content = .value(.scalar(text: value ? "1" : "0", object: value))
        node.set(child, forKey: key.stringValue)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        node.set(Node.scalar(value), forKey: key.stringValue)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        node.set(Node.floatingPoint(NSNumber(value: value)), forKey: key.stringValue)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        node.set(Node.floatingPoint(NSNumber(value: value)), forKey: key.stringValue)
    }

    mutating func encode(_ value: Int, forKey key: Key) throws {
        node.set(Node.scalar(value), forKey: key.stringValue)
    }

    mutating func encode(_ value: Int64, forKey key: Key) throws {
        node.set(Node.scalar(value), forKey: key.stringValue)
    }

    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        node.set(Node.scalar(value), forKey: key.stringValue)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.set(try ParameterEncoder.node(encoding: value, codingPath: codingPath + [key]), forKey: key.stringValue)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = Node()
        node.set(child, forKey: key.stringValue)
        return NodeEncoder(node: child, codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = Node()
        node.set(child, forKey: key.stringValue)
        return NodeEncoder(node: child, codingPath: codingPath + [key]).unkeyedContainer()
    }

    /// The encoder for a superclass's values under the key "super", as `JSONEncoder` does;
    /// `Key` itself need not have a "super" case.
    mutating func superEncoder() -> any Encoder {
        superEncoder(named: SuperKey())
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(named: key)
    }

    private func superEncoder(named key: any CodingKey) -> any Encoder {
        let child = Node()
        node.set(child, forKey: key.stringValue)
        return NodeEncoder(node: child, codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    var count: Int {
        if case .unkeyed(let children) = node.content { return children.count }
        return 0
    }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

    mutating func encodeNil() throws {
        let child = Node()
        child.content = .value(.null)
        node.append(child)
    }

    mutating func encode(_ value: Bool) throws {
        let child = Node()
        child.content = .value(.scalar(text: value ? "1" : "0", object: value))
        node.append(child)
    }

    mutating func encode(_ value: String) throws { node.append(Node.scalar(value)) }
    mutating func encode(_ value: Double) throws { node.append(Node.floatingPoint(NSNumber(value: value))) }
    mutating func encode(_ value: Int) throws { node.append(Node.scalar(value)) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.append(try ParameterEncoder.node(encoding: value, codingPath: nextPath))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = Node()
        let path = nextPath
        node.append(child)
        return NodeEncoder(node: child, codingPath: path).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = Node()
        let path = nextPath
        node.append(child)
        return NodeEncoder(node: child, codingPath: path).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = Node()
        let path = nextPath
        node.append(child)
        return NodeEncoder(node: child, codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: Node
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }

    mutating func encode(_ value: Bool) throws {
        node.content = .value(.scalar(text: value ? "1" : "0", object: value))
    }

    mutating func encode(_ value: String) throws { node.content = Node.scalar(value).content }
    mutating func encode(_ value: Double) throws { node.content = Node.floatingPoint(NSNumber(value: value)).content }
    mutating func encode(_ value: Float) throws { node.content = Node.floatingPoint(NSNumber(value: value)).content }
    mutating func encode(_ value: Int) throws { node.content = Node.scalar(value).content }
    mutating func encode(_ value: Int64) throws { node.content = Node.scalar(value).content }
    mutating func encode(_ value: UInt64) throws { node.content = Node.scalar(value).content }

    mutating func encode<T: Encodable>(_ value: T) throws {
        node.content = try ParameterEncoder.node(encoding: value, codingPath: codingPath).content
    }
}
