
// bySlot splits keys (ordered) into groups of one Redis Cluster hash slot, slots in order.
func bySlot(keys []string) [][]string {
	sort.SliceStable(keys, func(i, j int) bool { return slotOf(keys[i]) < slotOf(keys[j]) })
	var groups [][]string
	for i, key := range keys {
		if i == 0 || slotOf(key) != slotOf(keys[i-1]) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], key)
	}
	return groups
}

// slotOf is key's hash slot: CRC16 (XMODEM) of its {hash tag}, or of the whole key, mod 16384.
func slotOf(key string) int {
	if open := strings.IndexByte(key, '{'); open >= 0 {
		if end := strings.IndexByte(key[open+1:], '}'); end > 0 {
			key = key[open+1 : open+1+end]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for bit := 0; bit < 8; bit++ {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}
