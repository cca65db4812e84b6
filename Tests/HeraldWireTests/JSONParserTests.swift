import Foundation
import HeraldWire
import Testing

@Suite struct JSONParserTests {
    @Test func parsesEveryKindOfValue() throws {
        let text = #"{"a":[1,-2,3.5,1e3,true,false,null],"s":"x\"y\\z\u00e9\ud83d\ude00","o":{}}"#
        let value = try JSONValue.parse(Data(text.utf8))
        #expect(value["a"] == .array([.integer(1), .integer(-2), .number(3.5), .number(1000), .bool(true), .bool(false), .null]))
        #expect(value["s"] == .string("x\"y\\zé😀"))
        #expect(value["o"] == .object([:]))
    }

    @Test(arguments: ["", "{", "{\"a\":}", "[1,]", "01", "1.", "\"\u{01}\"", "{\"a\":1} x", "nul", "{'a':1}", "\"\\ud800\""])
    func rejectsMalformedDocuments(_ text: String) {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONValue.parse(Data(text.utf8)) }
    }

    @Test func boundsNesting() throws {
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(throws: JSONParser.SyntaxError.self) { try JSONValue.parse(Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 30) + String(repeating: "]", count: 30)
        _ = try JSONValue.parse(Data(fine.utf8))
    }

    @Test func encodesAndParsesBack() throws {
        let value = JSONValue.object(["aps": .object(["badge": .integer(3), "alert": .string("hi/there")]), "n": .number(0.5)])
        #expect(try JSONValue.parse(value.encoded()) == value)
    }
}
