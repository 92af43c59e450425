"""The physical card deck: which NFC tag is on which card, learnt by enrollment."""
