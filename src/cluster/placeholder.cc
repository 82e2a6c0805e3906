namespace jigsaw {}
