public class Z { public static void main(String[] a){ System.out.println(ProcessHandle.of(Long.parseLong(a[0])).map(ProcessHandle::isAlive)); } }
