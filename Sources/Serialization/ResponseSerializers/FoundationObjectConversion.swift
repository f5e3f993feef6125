import Foundation

/// Turns the object trees that `JSONSerialization` and `PropertyListSerialization` return into
/// `Sendable` trees of the same shape (`[String: any Sendable]`, `[any Sendable]`, `String`,
/// `NSNumber`, `NSNull`, `Data`, `Date`), so a parsed body can cross to a completion queue.
/// Callers cast them as they would the Foundation objects: `as? [String: Any]` works.
enum FoundationObjectConversion {
    static func sendable(_ object: Any, removingNulls: Bool) -> any Sendable {
        switch object {
        case let dictionary as [String: Any]:
            var result: [String: any Sendable] = [:]
            result.reserveCapacity(dictionary.count)
            for (key, value) in dictionary where !(removingNulls && value is NSNull) {
                result[key] = sendable(value, removingNulls: removingNulls)
            }
            return result
        case let array as [Any]:
            return array.compactMap { value -> (any Sendable)? in
                removingNulls && value is NSNull ? nil : sendable(value, removingNulls: removingNulls)
            }
        case let string as String: return string
        case let number as NSNumber: return number
        case let null as NSNull: return null
        case let data as Data: return data
        case let date as Date: return date
        default: return String(describing: object)
        }
    }
}
