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

    @Test(arguments: [
        "", "{", "{\"a\":}", "[1,]", "01", "1.", "\"\u{01}\"", "{\"a\":1} x", "nul", "{'a':1}", "\"\\ud800\"",
        "{,}", "[,1]", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "[1 2]", "{\"a\" 1}", "[1,,2]",
    ])
    func rejectsMalformedDocuments(_ text: String) {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONValue.parse(Data(text.utf8)) }
    }

    /// Found by Fuzz/FuzzJSON: `1e999` was read as infinity, which JSONWriter cannot write (it wrote `null`).
    @Test(arguments: ["1e999", "-1e999", "[1e400]", #"{"aps":{"relevance-score":1E309}}"#])
    func numbersBeyondADoubleAreRejected(_ text: String) {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONValue.parse(Data(text.utf8)) }
    }

    @Test func theLargestAndSmallestDoublesAreRead() throws {
        #expect(try JSONValue.parse(Data("1.7976931348623157e308".utf8)) == .number(.greatestFiniteMagnitude))
        #expect(try JSONValue.parse(Data("5e-324".utf8)) == .number(.leastNonzeroMagnitude))
        #expect(try JSONValue.parse(Data("1e-999".utf8)) == .number(0))
    }

    @Test func invalidUTF8InAStringIsRejected() {
        for bytes: [UInt8] in [[0x22, 0xC3, 0x28, 0x22], [0x22, 0x61, 0x5C, 0x6E, 0xFF, 0x22]] {
            #expect(throws: JSONParser.SyntaxError.self) { try JSONValue.parse(Data(bytes)) }
        }
    }

    @Test func stringsWithAndWithoutEscapesAndIntegersAtTheLimits() throws {
        let text = #"["plain é", "before\nafter", "", 9223372036854775807, -9223372036854775808, 9223372036854775808, -0]"#
        #expect(
            try JSONValue.parse(Data(text.utf8))
                == .array([
                    .string("plain é"), .string("before\nafter"), .string(""),
                    .integer(.max), .integer(.min), .number(9_223_372_036_854_775_808), .integer(0),
                ]))
    }

    @Test func largeObjectsKeepEveryMemberAndALaterDuplicateWins() throws {
        let members = (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        let value = try JSONValue.parse(Data(("{" + members + #","k3":"last"}"#).utf8))
        #expect(value.objectValue?.count == 20)
        #expect(value["k19"] == .integer(19))
        #expect(value["k3"] == .string("last"))
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

    /// The hand-written writer gives the text Foundation's encoder gives (sorted keys, `/` unescaped).
    @Test func writesWhatJSONEncoderWrites() throws {
        let text =
            #"{"aps":{"alert":{"title":"Hi \"you\"","body":"a/b\\c\n\t\u0001\u001fé😀"},"badge":3},"n":[1,-2,0.5,1e300,-0.25,1e-7,true,false,null,{}],"z":[]}"#
        let value = try JSONValue.parse(Data(text.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(String(decoding: value.encoded(), as: UTF8.self) == String(decoding: try encoder.encode(value), as: UTF8.self))
        #expect(try JSONValue.parse(value.encoded()) == value)
    }

    @Test func wholeNumbersStayNumbersAndIntegersStayExact() throws {
        let value = try JSONValue.parse(Data(#"{"b":1,"a":{"d":[],"c":""},"big":9007199254740993,"whole":42.0}"#.utf8))
        #expect(String(decoding: value.encoded(), as: UTF8.self) == #"{"a":{"c":"","d":[]},"b":1,"big":9007199254740993,"whole":42.0}"#)
        #expect(try JSONValue.parse(value.encoded()) == value)
    }
}
